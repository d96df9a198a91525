/* evidence_table.h's rows as data (side_evidence.h): what the results' encoder and
 * decoder walk, and the copy of each row's figure into the verdict's evidence. */
#include "side_evidence.h"
#include "diagnose.h"

#include <stddef.h>

const struct side_evidence_row side_evidence_rows[] = {
#define EV(name, field, max, role, to) \
    { name, offsetof(struct side_evidence, field), max, role, offsetof(struct diag_evidence, to) },
#include "evidence_table.h"
#undef EV
};
/* side_evidence_apply writes each row's figure as a double */
#define EV(name, field, max, role, to) \
    _Static_assert(_Generic(((struct diag_evidence *)0)->to, double: 1, default: 0), \
                   "diag_evidence." #to " is no double");
#include "evidence_table.h"
#undef EV

const size_t side_evidence_nrows = sizeof side_evidence_rows / sizeof side_evidence_rows[0];

double *side_evidence_at(struct side_evidence *v, const struct side_evidence_row *row)
{
    return (double *)((char *)v + row->off);
}

void side_evidence_init(struct side_evidence *v)
{
    for (size_t i = 0; i < side_evidence_nrows; i++)
        *side_evidence_at(v, &side_evidence_rows[i]) = -1;
}

void side_evidence_apply(const struct side_evidence *snd, const struct side_evidence *rcv,
                         struct diag_evidence *e)
{
    for (size_t i = 0; i < side_evidence_nrows; i++) {
        const struct side_evidence_row *row = &side_evidence_rows[i];
        const struct side_evidence *from = row->role == EV_SENDER ? snd : rcv;
        *(double *)((char *)e + row->diag_off) = *side_evidence_at((struct side_evidence *)from, row);
    }
}
