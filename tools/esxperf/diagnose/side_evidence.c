/* evidence_table.h's rows as data (side_evidence.h): what the results' encoder and
 * decoder walk. */
#include "side_evidence.h"

#include <stddef.h>

const struct side_evidence_row side_evidence_rows[] = {
#define EV(name, field, max) { name, offsetof(struct side_evidence, field), max },
#include "evidence_table.h"
#undef EV
};
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
