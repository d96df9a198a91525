/* The symbolic name of an errno value ("ENOSYS", "ENOPROTOOPT"), for the reports
 * that tell a user what this host refused: a name reads the same on every libc and
 * in a report sent back, where strerror's text does not. The table holds the values
 * a system call or socket option may be refused with. */
#ifndef ESXDIAG_ERRNAME_H
#define ESXDIAG_ERRNAME_H
#include <stddef.h>

/* the name of err, or "errno N" (written into buf) for one the table lacks */
const char *errno_name(int err, char *buf, size_t len);

#endif
