/* The last check before exit: did the output get written? (the rule: output.h) */
#include "output.h"
#include "escape.h"
#include "fail.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

/* errno values a write(2) of results gives (a disk or quota full, a file too big,
 * an I/O error, a closed pipe or descriptor, a read-only place) */
static int write_errno(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO || e == EPIPE ||
           e == EBADF || e == EROFS;
}

void output_start(void)
{
    signal(SIGPIPE, SIG_IGN);
}

int output_done(FILE *out, const char *where, int errfd, int rc)
{
    return output_done_what(out, "the results", where, errfd, rc);
}

_Noreturn void output_exit(const char *what)
{
    exit(output_done_what(stdout, what, "stdout", STDERR_FILENO, EXIT_OKAY));
}

int output_done_what(FILE *out, const char *what, const char *where, int errfd, int rc)
{
    /* stdio keeps only a flag for an earlier failed write, not its errno: what the
     * failing write left in errno is used when nothing has replaced it since by
     * something a write cannot give */
    int earlier = errno;
    errno = 0;
    int flushed = fflush(out);
    int e = flushed ? errno : 0;
    if (flushed == 0 && !ferror(out))
        return rc;
    if (!e && write_errno(earlier))
        e = earlier;
    /* one line, a --logfile path escaped as every message is (escape.h) */
    char line[1024], shown[600];
    esc_text(where, shown, sizeof shown);
    int n = snprintf(line, sizeof line, "%s: cannot write %s to %s: %s\n", tool_name, what,
                     shown, e ? errtext(e) : "an earlier write failed");
    if (n > 0) {   /* if even this fails, the exit code still says it */
        ssize_t w = write(errfd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
    return EXIT_USAGE;
}
