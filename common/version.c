/* --version: toolkit version, the commit it was built from, musl and mbedtls. */
#include "version.h"
#include "fail.h"
#include "buildinfo.h"
#include "mbedtls/version.h"

#include <stdio.h>

const char *version_string(void)
{
    return ESXDIAG_VERSION;
}

void version_print(void)
{
    printf("%s (esxdiag %s, commit %s)\nmusl %s, mbedtls %s\n", tool_name,
           ESXDIAG_VERSION, ESXDIAG_COMMIT, ESXDIAG_MUSL, MBEDTLS_VERSION_STRING);
}
