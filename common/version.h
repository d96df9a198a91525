/* --version text shared by every tool: the toolkit version, the commit, the
 * architecture, and the libraries this very binary contains. */
#ifndef ESXDIAG_VERSION_H
#define ESXDIAG_VERSION_H

/* prints "esxperf (esxdiag 0.1.0, commit abc1234)\n"
 *        "built for x86_64 with musl 1.2.3, mbedtls 2.28.3, jsmn 1.1.0\n" */
void version_print(void);
const char *version_string(void);   /* "0.1.0" */

/* A module that compiles a third-party library into the binary says so once, beside
 * its #include of that library:
 *     VERSION_LIBRARY(mbedtls, MBEDTLS_VERSION_STRING);
 * The entry goes into the section esxdiag_libs; the linker gathers that section from
 * the modules the binary really contains and marks its ends (__start_/__stop_), so
 * version_print names exactly those libraries: a tool that never calls into
 * common/crypto.c does not claim mbedtls. Entries are 64 bytes and 64-aligned, so
 * the section is an array without gaps. */
struct version_library {
    char name[16];
    char version[48];
} __attribute__((aligned(64)));

#define VERSION_LIBRARY(lib, ver)                                                      \
    __attribute__((used, section("esxdiag_libs"))) static const struct version_library \
        version_library_##lib = { #lib, ver }

#endif
