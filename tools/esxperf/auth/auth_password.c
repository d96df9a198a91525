/* The client's password for RSA authentication: IPERF3_PASSWORD, else a prompt
 * on /dev/tty with echo off and the stopping signals held until the terminal is
 * restored (the prompt never goes to stdout). */
#include "auth.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int auth_password_prompt(int ttyfd, char *out, size_t outcap, char *err, size_t errlen)
{
    static const char prompt[] = "Password: ";
    struct termios old, quiet;
    sigset_t block, saved;
    size_t n = 0;
    int rc = -1, toolong = 0;

    if (outcap == 0)
        return -1;
    out[0] = 0;
    if (tcgetattr(ttyfd, &old) != 0) {
        why_fmt(err, errlen, "no password: IPERF3_PASSWORD is not set and there is no "
               "terminal to ask on (%s)", errtext(errno));
        return -1;
    }
    /* Signals that would stop or end us while echo is off wait until the terminal
     * is restored; they are delivered right after. */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGQUIT);
    sigaddset(&block, SIGTSTP);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGTTOU);
    sigaddset(&block, SIGTTIN);
    sigprocmask(SIG_BLOCK, &block, &saved);
    quiet = old;
    quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
    quiet.c_lflag |= ICANON;
    if (tcsetattr(ttyfd, TCSAFLUSH, &quiet) != 0) {
        why_fmt(err, errlen, "cannot turn terminal echo off: %s", errtext(errno));
        goto restore_signals;
    }
    if (write(ttyfd, prompt, sizeof prompt - 1) < 0) {
        why_fmt(err, errlen, "cannot write the password prompt: %s", errtext(errno));
        goto restore;
    }
    for (;;) {
        char c;
        ssize_t r = read(ttyfd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            why_fmt(err, errlen, "cannot read the password: %s", errtext(errno));
            goto restore;
        }
        if (r == 0 || c == '\n' || c == '\r')
            break;
        if (n + 1 < outcap && n < AUTH_PASS_MAX)
            out[n++] = c;
        else
            toolong = 1;
    }
    out[n] = 0;
    if (toolong) {
        why_fmt(err, errlen, "password longer than %zu bytes",
               outcap - 1 < AUTH_PASS_MAX ? outcap - 1 : (size_t)AUTH_PASS_MAX);
        goto restore;
    }
    rc = 0;
restore:
    (void)!write(ttyfd, "\n", 1);
    tcsetattr(ttyfd, TCSAFLUSH, &old);
restore_signals:
    sigprocmask(SIG_SETMASK, &saved, NULL);
    if (rc)
        crypto_wipe(out, outcap);
    return rc;
}

int auth_password_get(char *out, size_t outcap, char *err, size_t errlen)
{
    const char *env = getenv("IPERF3_PASSWORD");
    if (env) {
        size_t n = strlen(env);
        if (n >= outcap || n > AUTH_PASS_MAX) {
            why_fmt(err, errlen, "IPERF3_PASSWORD is longer than %d bytes", AUTH_PASS_MAX);
            return -1;
        }
        memcpy(out, env, n + 1);
        return 0;
    }
    int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        why_fmt(err, errlen, "no password: IPERF3_PASSWORD is not set and /dev/tty "
               "cannot be opened (%s)", errtext(errno));
        return -1;
    }
    int rc = auth_password_prompt(fd, out, outcap, err, errlen);
    close(fd);
    return rc;
}
