/* The result of one inspection as a value: findings appended with a bound, room for
 * partitions, the worst severity and the names the outputs print. Calls nothing that
 * reads a disk, so every parser (gpt.c, mbr.c, parse.c) can use it. */
#include "ptable.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void pt_add(struct ptable *t, enum sev sev, const char *fmt, ...)
{
    if (t->nfind >= PT_MAX_FINDINGS) {
        t->dropped++;
        /* keep the worst severity visible even when the list is full */
        if (sev > t->findings[PT_MAX_FINDINGS - 1].sev)
            t->findings[PT_MAX_FINDINGS - 1].sev = sev;
        return;
    }
    struct finding *f = &t->findings[t->nfind++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
    f->sev = sev;
}

struct part *pt_new_part(struct ptable *t)
{
    if (t->nparts >= PT_MAX_PARTS) {
        if (!t->parts_full)
            pt_add(t, SEV_ERROR, "more than %d partitions: only the first %d are listed",
                   PT_MAX_PARTS, PT_MAX_PARTS);
        t->parts_full = 1;
        return NULL;
    }
    struct part *p = &t->parts[t->nparts++];
    memset(p, 0, sizeof *p);
    return p;
}

int pt_read_whole(const struct ptable *t)
{
    return t->kind == PT_GPT && (t->primary_ok || t->backup_ok) && !t->gpt_cut && !t->parts_bad &&
           !t->parts_full;
}

int pt_worst(const struct ptable *t)
{
    int w = -1;
    for (size_t i = 0; i < t->nfind; i++)
        if ((int)t->findings[i].sev > w)
            w = (int)t->findings[i].sev;
    return w;
}

const char *pt_health(const struct ptable *t)
{
    int w = pt_worst(t);
    return w == SEV_ERROR ? "error" : w == SEV_WARN ? "warning" : "ok";
}

const char *pt_kind_name(enum pt_kind k)
{
    return k == PT_GPT ? "gpt" : k == PT_MSDOS ? "msdos" : "unknown";
}

const char *sev_name(enum sev s)
{
    return s == SEV_ERROR ? "error" : s == SEV_WARN ? "warning" : "info";
}
