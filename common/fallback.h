/* The socket options this host refused and what a tool did instead: each tool
 * notes a refusal where it happens (any thread), once per option, and names the
 * list in -V and -J ("fallbacks": [{option, errno, fallback}]), so a run that went
 * on degraded says how. An option whose refusal ends the run is not noted here:
 * it fails with one line naming the option. */
#ifndef ESXDIAG_FALLBACK_H
#define ESXDIAG_FALLBACK_H

#define FALLBACK_MAX 24

struct fallback {
    const char *option;          /* "SO_RCVTIMEO", a static string */
    int err;                     /* the errno of the refusal */
    const char *instead;         /* what the tool did instead, a static string */
};

/* note that OPTION was refused with ERR and what was done instead; the first note
 * of an option counts, later ones are dropped; keeps errno */
void fallback_note(const char *option, int err, const char *instead);
/* the notes so far, in the order made; *n is their count */
const struct fallback *fallback_list(int *n);
/* 1 when OPTION was noted */
int fallback_has(const char *option);
struct jsonw;
/* the array "fallbacks" (key) of {option, errno, fallback}: [] when none */
void fallback_json(struct jsonw *w, const char *key);
/* note i as one line for -V, "OPTION refused (ERRNO): what was done instead" */
const char *fallback_text(int i, char *buf, unsigned len);

#endif
