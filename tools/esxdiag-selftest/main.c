/* esxdiag-selftest: what this host's kernel lets the kit's tools do. Tries each
 * system call and socket option esxperf and esxmtu use (probes.c), on loopback only,
 * and prints one row per call: works, refused (the errno) or not tried (why), and
 * what the tools do when it is refused; -J the same as JSON. Sends nothing off the
 * host, changes nothing on it, ends in well under five seconds. */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "args.h"
#include "clock.h"
#include "errname.h"
#include "escape.h"
#include "fail.h"
#include "jsonw.h"
#include "output.h"
#include "version.h"
#include "probes.h"

const char tool_name[] = "esxdiag-selftest";

/* The options, one row each, in the order --help shows them, with the usage text
 * around them: the option engine (common/args.c) derives getopt_long's tables and
 * --help from these rows, so an option cannot be in one and not the other. */
struct selftest_opts { int json; };
enum { OPT_VERSION = 256 };
static const struct opt_row rows[] = {
    { .help =
      "usage: esxdiag-selftest [options]\n"
      "\n"
      "Try each system call and socket option esxperf and esxmtu use, on loopback\n"
      "sockets of this host only, and print one row each: works, refused (the errno the\n"
      "kernel gave) or not tried (why), and what the tools do when it is refused.\n"
      "Sends nothing off the host and changes nothing on it; runs in under 5 seconds.\n"
      "Raw sockets and the forced buffer sizes are tried as root only.\n"
      "\n" },
    { 'J', 'J', "json", OPT_ARG_NONE,
      "  -J, --json           JSON output (keys documented in docs/esxi.md)\n",
      .kind = OPT_FLAG, .off = offsetof(struct selftest_opts, json) },
    { OPT_VERSION, 0, "version", OPT_ARG_NONE,
      "      --version        print the version\n", .kind = OPT_MAIN },
    { 'h', 'h', "help", OPT_ARG_NONE,
      "  -h, --help           this text\n", .kind = OPT_MAIN },
    { .help =
      "\n"
      "Examples:\n"
      "  esxdiag-selftest                          the table\n"
      "  esxdiag-selftest -J > selftest.json       to send back\n"
      "\n"
      "Exit codes: 0 the probes ran (whatever they found refused); 2 usage error, or the\n"
      "results could not be written.\n" },
};
#define NROWS (sizeof rows / sizeof rows[0])

/* getopt's refusals in the common words: "unknown option --x", "option --json
 * takes no value" (no option here takes a value) */
static const struct bad_option_words refusals = { 0, "", "" };

/* --version and -h */
static void main_opt(void *ctx, int code, const char *value)
{
    (void)ctx, (void)value;
    if (code == OPT_VERSION) {
        version_print();
        output_exit("the version");
    }
    for (size_t i = 0; i < NROWS; i++)
        fputs(rows[i].help, stdout);
    output_exit("the help text");
}

static int parse_opts(int argc, char **argv)
{
    static char shorts[ARGS_SHORTS(NROWS)];
    static struct option longs[NROWS + 1];
    static const struct args_table table = { rows, NROWS, &refusals, 256, shorts, longs };
    struct selftest_opts o = { 0 };
    int first = args_parse(&table, &o, NULL, argc, argv, main_opt, NULL);
    if (first < argc) {
        char shown[256];
        esc_text(argv[first], shown, sizeof shown);
        die_usage("unexpected argument '%s': esxdiag-selftest takes options only", shown);
    }
    return o.json;
}

struct run {
    struct utsname u;
    int root;
    size_t n, counts[3];
    struct probe_result *res;
};

/* every probe, in table order; once the budget is spent the rest are not tried */
static void run_all(struct run *r)
{
    uint64_t end = mono_ns() + (uint64_t)PROBE_BUDGET_MS * NS_PER_MS;
    r->n = probe_count();
    r->res = xcalloc(r->n, sizeof *r->res);
    for (size_t i = 0; i < r->n; i++) {
        if (mono_ns() >= end) {
            r->res[i].state = PROBE_NOT_TRIED;
            snprintf(r->res[i].why, sizeof r->res[i].why, "time budget spent");
        } else {
            probe_run(i, r->root, &r->res[i]);
        }
        r->counts[r->res[i].state]++;
    }
}

/* "works", "refused ENOSYS", "refused: 4 of 104 bytes...", "not tried: needs root" */
static void result_text(const struct probe_result *p, char *buf, size_t len)
{
    char name[24];
    if (p->state == PROBE_WORKS)
        snprintf(buf, len, "works");
    else if (p->state == PROBE_REFUSED && p->err)
        snprintf(buf, len, "refused %s", errno_name(p->err, name, sizeof name));
    else if (p->state == PROBE_REFUSED)
        snprintf(buf, len, "refused: %s", p->why);
    else
        snprintf(buf, len, "not tried: %s", p->why);
}

static void print_text(const struct run *r)
{
    char host[sizeof r->u.nodename * 4], res[160];
    esc_text(r->u.nodename, host, sizeof host);
    printf("esxdiag-selftest %s on %s: %s %s %s, %s\n", version_string(), host, r->u.sysname,
           r->u.release, r->u.machine, r->root ? "as root" : "not root (raw sockets not tried)");
    int wn = (int)strlen("probe"), wr = (int)strlen("result");
    for (size_t i = 0; i < r->n; i++) {
        int l = (int)strlen(probe_row(i)->name);
        wn = l > wn ? l : wn;
        result_text(&r->res[i], res, sizeof res);
        l = (int)strlen(res);
        wr = l > wr ? l : wr;
    }
    printf("%-*s  %-7s  %-*s  %s\n", wn, "probe", "kind", wr, "result", "when refused");
    for (size_t i = 0; i < r->n; i++) {
        const struct probe_row *p = probe_row(i);
        result_text(&r->res[i], res, sizeof res);
        printf("%-*s  %-7s  %-*s  %s\n", wn, p->name, p->kind, wr, res, p->fallback);
    }
    printf("summary: %zu works, %zu refused, %zu not tried\n", r->counts[PROBE_WORKS],
           r->counts[PROBE_REFUSED], r->counts[PROBE_NOT_TRIED]);
}

static void print_json(const struct run *r)
{
    struct jsonw w;
    char name[24];
    jw_init(&w, 1);
    jw_obj(&w, NULL);
    jw_obj(&w, "selftest");
    jw_str(&w, "version", version_string());
    jw_str(&w, "host", r->u.nodename);
    jw_str(&w, "arch", r->u.machine);
    jw_str(&w, "kernel", r->u.release);
    jw_str(&w, "system", r->u.sysname);
    jw_bool(&w, "root", r->root);
    jw_arr(&w, "probes");
    for (size_t i = 0; i < r->n; i++) {
        const struct probe_row *p = probe_row(i);
        const struct probe_result *q = &r->res[i];
        jw_obj(&w, NULL);
        jw_str(&w, "name", p->name);
        jw_str(&w, "kind", p->kind);
        jw_str(&w, "result", probe_state_name(q->state));
        if (q->state == PROBE_REFUSED && q->err)
            jw_str(&w, "errno", errno_name(q->err, name, sizeof name));
        else
            jw_null(&w, "errno");
        jw_str(&w, "detail", q->why[0] ? q->why : NULL);
        jw_str(&w, "fallback", p->fallback);
        jw_end(&w);
    }
    jw_end(&w);
    jw_obj(&w, "summary");
    jw_uint(&w, "works", r->counts[PROBE_WORKS]);
    jw_uint(&w, "refused", r->counts[PROBE_REFUSED]);
    jw_uint(&w, "not_tried", r->counts[PROBE_NOT_TRIED]);
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);
    fputs(jw_text(&w), stdout);
    fputc('\n', stdout);
    jw_free(&w);
}

int main(int argc, char **argv)
{
    output_start();
    argc = args_strip_vmk(argc, &argv);
    int json = parse_opts(argc, argv);
    struct run r;
    memset(&r, 0, sizeof r);
    if (uname(&r.u) < 0)
        memset(&r.u, 0, sizeof r.u);
    r.root = geteuid() == 0;
    run_all(&r);
    if (json)
        print_json(&r);
    else
        print_text(&r);
    free(r.res);
    return output_done(stdout, "stdout", STDERR_FILENO, EXIT_OKAY);
}
