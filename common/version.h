/* --version text shared by every tool. */
#ifndef ESXDIAG_VERSION_H
#define ESXDIAG_VERSION_H

/* prints "esxpart (esxdiag 0.1.0, commit abc1234)\nmusl 1.2.3, mbedtls 2.28.3\n" */
void version_print(void);
const char *version_string(void);   /* "0.1.0" */

#endif
