/* The list of refused socket options (fallback.h): a fixed array under a mutex,
 * since stream threads note refusals while the main thread may read. */
#include "fallback.h"
#include "errname.h"
#include "jsonw.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct fallback list[FALLBACK_MAX];
static int count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void fallback_note(const char *option, int err, const char *instead)
{
    int saved = errno;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < count && strcmp(list[i].option, option) != 0)
        i++;
    if (i == count && count < FALLBACK_MAX)
        list[count++] = (struct fallback){ option, err, instead };
    pthread_mutex_unlock(&lock);
    errno = saved;
}

const struct fallback *fallback_list(int *n)
{
    pthread_mutex_lock(&lock);
    *n = count;
    pthread_mutex_unlock(&lock);
    return list;
}

int fallback_has(const char *option)
{
    int n, has = 0;
    const struct fallback *f = fallback_list(&n);
    for (int i = 0; i < n && !has; i++)
        has = strcmp(f[i].option, option) == 0;
    return has;
}

void fallback_json(struct jsonw *w, const char *key)
{
    int n;
    const struct fallback *f = fallback_list(&n);
    char name[24];
    jw_arr(w, key);
    for (int i = 0; i < n; i++) {
        jw_obj(w, NULL);
        jw_str(w, "option", f[i].option);
        jw_str(w, "errno", errno_name(f[i].err, name, sizeof name));
        jw_str(w, "fallback", f[i].instead);
        jw_end(w);
    }
    jw_end(w);
}

const char *fallback_text(int i, char *buf, unsigned len)
{
    int n;
    const struct fallback *f = fallback_list(&n);
    char name[24];
    if (i < 0 || i >= n)
        return "";
    snprintf(buf, len, "%s refused (%s): %s", f[i].option,
             errno_name(f[i].err, name, sizeof name), f[i].instead);
    return buf;
}
