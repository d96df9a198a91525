/* What the client asks for: the parameters it sends (from the options), the RSA
 * authtoken among them, and the warning when -b cannot land on its rate with
 * whole datagrams. */
#include "client.h"
#include "auth.h"
#include "clock.h"
#include "fail.h"
#include "pace.h"
#include "rr_io.h"

#include <stdio.h>
#include <time.h>

/* every row of params_table.h with an OPT option: the option as it is */
#define COPY_OPT(field, oname) p->field = o->oname;
#define COPY_OWN(field, oname)
#define COPY_NONE(field, oname)
#define COPY_STR_OPT(field, oname) \
    if (o->oname) \
        snprintf(p->field, sizeof p->field, "%s", o->oname);
#define COPY_STR_OWN(field, oname)
#define COPY_STR_NONE(field, oname)
#define WIRE_FLAG(key, field, json, send, copy, otype, oname) COPY_##copy(field, oname)
#define WIRE_NUM(key, field, send, copy, otype, oname, dflt, min, max, range) \
    COPY_##copy(field, oname)
#define WIRE_STR(key, field, size, send, copy, otype, oname, dflt, fit) \
    COPY_STR_##copy(field, oname)

void client_params(const struct perf_opts *o, int ctl_mss, struct test_params *p)
{
    params_defaults(p);
#include "params_table.h"
    /* the OWN rows: what the options leave to iperf3's defaults */
    p->time = (o->num || o->blockcount) ? 0 : o->time;
    p->len = o->len;
    if (!p->len) {
        if (o->udp) {
            p->len = ctl_mss > 0 ? ctl_mss : 1460;
            if (p->len > UDP_LEN_MAX)
                p->len = UDP_LEN_MAX;
            if (p->len < UDP_LEN_MIN)
                p->len = UDP_LEN_MIN;
        } else {
            p->len = 128 * 1024;
        }
    }
    p->bandwidth = o->bandwidth_set ? (int64_t)o->bandwidth : (o->udp ? 1048576 : 0);
    /* --rr: small requests by default, and -b is transactions/s (no UDP default) */
    if (o->rr) {
        p->len = o->len ? o->len : RR_LEN_DEFAULT;
        p->bandwidth = o->bandwidth_set ? (int64_t)o->bandwidth : 0;
    }
    /* --rr-load: the idle phase is the omitted seconds (the bulk streams wait them
     * out), and stream 1 asks while -P bulk streams move data */
    if (o->rr && o->rr_load) {
        p->omit = o->rr_idle;
        p->parallel = o->parallel + 1;
    }
    if (o->gsro && o->udp) {    /* iperf3 3.22's --gsro sizes: whole datagrams in 64 KiB */
        p->gso = p->gro = 1;
        p->gso_dg_size = p->len;
        p->gso_bf_size = UDP_LEN_MAX / p->len * p->len;
        p->gro_bf_size = UDP_LEN_MAX;
    }
}

/* RSA authentication: with --username and --rsa-public-key-path, the authtoken
 * (base64 ciphertext) into out. Made before connecting, as iperf3 does, so that a
 * password prompt does not keep the server's control connection waiting. Returns
 * 0 (out "" without those options), or -1 after printing why. */
int client_authtoken(const struct perf_opts *o, char *out, size_t outcap)
{
    char err[300], pw[AUTH_PASS_MAX + 1];
    out[0] = '\0';
    if (!o->username || !o->rsa_public_key)
        return 0;
    struct crypto_key *pub = crypto_key_load_public(o->rsa_public_key, err, sizeof err);
    if (!pub) {
        warnmsg("cannot use the server's public key: %s (give a PEM public key with "
                "--rsa-public-key-path)", err);
        return -1;
    }
    int rc = auth_password_get(pw, sizeof pw, err, sizeof err);
    if (rc == 0)
        rc = auth_token_make(pub, o->use_pkcs1 ? CRYPTO_PKCS1_V15 : CRYPTO_OAEP_SHA1,
                             o->username, pw, (int64_t)time(NULL), out, outcap, err,
                             sizeof err);
    crypto_wipe(pw, sizeof pw);
    crypto_key_free(pub);
    if (rc < 0) {
        warnmsg("cannot make the authentication token: %s", err);
        out[0] = '\0';
        return -1;
    }
    return 0;
}

/* UDP sends whole datagrams: when one datagram is a good part of what the rate
 * moves in the test, the test cannot land on the rate; say so before it runs
 * (TCP writes smaller pieces instead, pace_chunk) */
void client_warn_pace(const struct test_params *p)
{
    if (!p->udp || !p->time || p->bandwidth <= 0 || p->rr)   /* --rr: -b is transactions/s */
        return;
    uint64_t rate = (uint64_t)p->bandwidth, secs = (uint64_t)p->time;
    int pct = pace_overshoot_pct(rate, (size_t)p->len, (uint64_t)p->burst, secs * NS_PER_SEC);
    if (pct <= PACE_OVERSHOOT_OK)
        return;
    /* the datagram size that keeps one datagram within PACE_OVERSHOOT_OK % */
    uint64_t fit = rate / 8 * secs * PACE_OVERSHOOT_OK / 100 / (p->burst > 1 ? (uint64_t)p->burst : 1);
    if (fit >= UDP_LEN_MIN)
        warnmsg("warning: -b %lld bit/s with %lld-byte datagrams for %lld s: whole datagrams "
                "can land up to %d%% above the rate (-l %llu or smaller keeps it within %d%%)",
                (long long)p->bandwidth, (long long)p->len, (long long)p->time, pct,
                (unsigned long long)fit, PACE_OVERSHOOT_OK);
    else
        warnmsg("warning: -b %lld bit/s for %lld s moves fewer bytes than a few datagrams: "
                "whole datagrams can land up to %d%% above the rate (raise -b or -t)",
                (long long)p->bandwidth, (long long)p->time, pct);
}
