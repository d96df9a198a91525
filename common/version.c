/* --version: toolkit version, commit, architecture, musl, and the libraries the
 * linker put into this binary (VERSION_LIBRARY entries, see version.h). */
#include "version.h"
#include "fail.h"
#include "buildinfo.h"

#include <stdio.h>

_Static_assert(sizeof(struct version_library) == 64, "entries must tile esxdiag_libs");

/* defined by the linker when at least one module with an entry is linked in */
extern const struct version_library __start_esxdiag_libs[] __attribute__((weak));
extern const struct version_library __stop_esxdiag_libs[] __attribute__((weak));

const char *version_string(void)
{
    return ESXDIAG_VERSION;
}

void version_print(void)
{
    printf("%s (esxdiag %s, commit %s)\nbuilt for %s with musl %s", tool_name,
           ESXDIAG_VERSION, ESXDIAG_COMMIT, ESXDIAG_ARCH, ESXDIAG_MUSL);
    for (const struct version_library *l = __start_esxdiag_libs; l && l < __stop_esxdiag_libs; l++)
        printf(", %.*s %.*s", (int)sizeof l->name, l->name, (int)sizeof l->version, l->version);
    printf("\n");
}
