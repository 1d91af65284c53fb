//@ The C harness of expand's --verify: a scalar function against its vector expansion, lane by lane.
//@ expand/check/verify.py (``_harness``) fills this template in; its module docstring says what the
//@ harness does. The template's own syntax, all on lines of their own (every other line is C):
//@   //@ text            a note on the template, left out of the harness (like these lines)
//@   //@if NAME          the lines up to the matching //@else or //@endif are kept when NAME holds
//@   //@else, //@endif   (conditions nest)
//@   ${NAME}             alone on a line: lines generated for this function's parameters, each
//@                       indented like the placeholder (nothing when there are none)
//@ and ${NAME} within a line is a value (string.Template; no C here needs a `$`).
/* expand verify harness: ${scalar_name} vs ${vector_name} [${isa}, ${lanes} lanes] */
#include "${vector_file}"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define VFY_L ${lanes}
#define VFY_NEDGE ${n_edge}ULL
#define VFY_TOTAL ${total}ULL

//@if shared
//@ Uniform and linear parameters: linear ones start at VFY_OFFSET, uniform arrays have VFY_OFFSET spare
//@ elements at each end; the varying edge plan takes VFY_GV gangs for each uniform combination.
#define VFY_OFFSET ${offset}ULL
#define VFY_GV ${vgangs}ULL
#define VFY_NARR (VFY_TOTAL + 2 * VFY_OFFSET)  /* elements of each uniform array */

//@endif
//@ Uniform pointer parameters: arrays between inaccessible pages, and a report of where a trap happened.
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif

/* An array of `bytes` bytes that ends exactly at a page boundary followed by an inaccessible page;
   its first page follows another inaccessible page. *slack: the bytes of that page before it. */
__attribute__((unused)) static void *vfy_guarded(size_t bytes, size_t *slack) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), data = (bytes + pg - 1) / pg * pg;
    unsigned char *m = mmap(NULL, data + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m, pg, PROT_NONE) != 0 || mprotect(m + pg + data, pg, PROT_NONE) != 0) {
        perror("verify harness: mmap/mprotect");
        exit(2);
    }
    *slack = data - bytes;
    return m + pg + *slack;
}

/* Where the harness is: 0 elsewhere, 1 in a scalar call, 2 in the vector call, of gang vfy_at_gang.
   VFY_WHERE(w) keeps the (inlined) calls' memory accesses on their side of the change. */
#define VFY_WHERE(w) do { atomic_signal_fence(memory_order_seq_cst); vfy_where = (w); \
                          atomic_signal_fence(memory_order_seq_cst); } while (0)
static volatile sig_atomic_t vfy_where;
static volatile unsigned long long vfy_at_gang, vfy_at_input;

static void vfy_put(char *b, int *n, const char *s) {
    while (*s && *n < 200) b[(*n)++] = *s++;
}

static void vfy_put_u(char *b, int *n, unsigned long long v) {
    char d[24];
    int k = 0;
    do { d[k++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (k && *n < 200) b[(*n)++] = d[--k];
}

static void vfy_on_signal(int sig) {
    char b[256];
    int n = 0;
    unsigned long long g = vfy_at_gang;
    if (sig == SIGALRM) {  /* (the time limit: VFY_TIMEOUT) */
        vfy_put(b, &n, "verify harness: time limit reached");
    } else {
        vfy_put(b, &n, "verify harness: signal ");
        vfy_put_u(b, &n, (unsigned long long)sig);
    }
    vfy_put(b, &n, vfy_where == 1 ? " in a scalar call" : vfy_where == 2 ? " in the vector call" : " in the harness");
    if (vfy_where == 1) {
        vfy_put(b, &n, " (input ");
        vfy_put_u(b, &n, vfy_at_input);
        vfy_put(b, &n, ")");
    } else if (vfy_where) {
        vfy_put(b, &n, " (inputs ");
        vfy_put_u(b, &n, g * VFY_L);
        vfy_put(b, &n, "..");
        vfy_put_u(b, &n, g * VFY_L + VFY_L - 1);
        vfy_put(b, &n, ")");
    }
    vfy_put(b, &n, "\n");
    ssize_t r = write(2, b, (size_t)n);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* vfy_on_signal for the faults, on a stack of its own: a stack overflow in a call (a runaway recursion)
   is reported at its side too. */
static void vfy_catch_faults(void) {
    static char stack[1 << 16];
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = stack;
    ss.ss_size = sizeof stack;
    sigaltstack(&ss, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = vfy_on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (unsigned k = 0; k < sizeof sigs / sizeof sigs[0]; k++) sigaction(sigs[k], &sa, 0);
}

extern ${ret} vfy_scalar(${proto}) __asm__("${scalar_symbol}");

static uint64_t vfy_state;
__attribute__((unused)) static uint64_t vfy_next(void) {  /* splitmix64 */
    uint64_t z = (vfy_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

__attribute__((unused)) static uint64_t vfy_bits(const void *p, int size) {
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    switch (size) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

__attribute__((unused)) static void vfy_set(void *p, int size, uint64_t b) {
    uint8_t u8 = (uint8_t)b; uint16_t u16 = (uint16_t)b; uint32_t u32 = (uint32_t)b;
    switch (size) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &b, 8); break;
    }
}

/* cls: 0 float, 1 signed int, 2 unsigned int */
__attribute__((unused)) static void vfy_show(int cls, int size, uint64_t b) {
    if (cls == 0 && size == 4) { float f; uint32_t u = (uint32_t)b; memcpy(&f, &u, 4); printf("0x%08llx (%.9g)", (unsigned long long)b, (double)f); }
    else if (cls == 0) { double d; memcpy(&d, &b, 8); printf("0x%016llx (%.17g)", (unsigned long long)b, d); }
    else if (cls == 1) { int sh = 64 - 8 * size; long long s = (long long)(b << sh) >> sh; printf("0x%0*llx (%lld)", 2 * size, (unsigned long long)b, s); }
    else printf("0x%0*llx (%llu)", 2 * size, (unsigned long long)b, (unsigned long long)b);
}

//@if call_log
//@ The call log (verify(call_log=True)). The vector code calls a non-expandable function once per active
//@ lane, lanes in increasing order, for each call site (and, in a loop, for each iteration). The vector
//@ records are attributed to lanes in vector order, each lane's scalar records taken in their order: a
//@ record of site s goes to the lowest lane whose next scalar record is of site s (without loops, where a
//@ site is reached at most once per scalar call, the vector records of s belong to the lanes whose scalar
//@ run recorded s, in lane order), and must have its value. In a loop the lanes reach a site in different
//@ iterations, so that lane order holds within each round of calls only: the records of the sites
//@ verify(call_log_loose=...) names (the sites in loops: vfy_log_loose) go to a lane whose next scalar
//@ record is that record, site and value, another such lane where the first choice leaves records no
//@ lane accounts for (a search over those choices; after a record of the same site, modulo the tag step,
//@ it tries the lanes after that record's lane first, as one round calls its lanes in increasing order:
//@ trying every record from lane 0 on ran out of steps with 32 lanes, program 20261126-1651). Every lane's records, taken in vector order, must
//@ then equal its scalar run's records: same calls, same arguments, same order. Where no attribution
//@ does, lanes are given records as before this search (a record to the lane that has had the fewest
//@ records of its site so far) to show the difference; a vector record no lane accounts for makes every
//@ lane of the gang differ (counted per lane and site, linear in the records). Where the search first
//@ has to step back, it checks that the vector records and the scalar ones are the same multiset (site,
//@ and value at loose sites); where not, no attribution exists and it stops there. More than
//@ VFY_LOG_MAX records per gang: a mismatch. (The search can fail or
//@ take long where many lanes call a site with the same few values. expand-fuzz's programs name the
//@ loop counters in a call's site, fuzz.tag_sites, so each lane makes each site's call at most once
//@ and the values keep the search short; those sites are still loose, by site modulo the tag step:
//@ lanes whose counters start from different values reach one site in different rounds.)

static int vfy_log_loose(int s) {
    ${log_loose}
}

static int vfy_log_key(int s) {
    ${log_key}
}

#define VFY_LOG_MAX ${log_max}U
static int vfy_log_site[VFY_LOG_MAX];
static uint64_t vfy_log_val[VFY_LOG_MAX];
static int vfy_log_lane[VFY_LOG_MAX], vfy_log_rank[VFY_LOG_MAX];
static unsigned vfy_log_n, vfy_log_lost;
static unsigned vfy_log_mark[VFY_L + 1];  /* lane l's scalar records: [mark[l], mark[l + 1]) */
static int vfy_log_bad[VFY_L];

void vfy_log_record(int site, uint64_t bits);
void vfy_log_record(int site, uint64_t bits) {
    if (vfy_log_n >= VFY_LOG_MAX) { vfy_log_lost = 1; return; }
    vfy_log_site[vfy_log_n] = site;
    vfy_log_val[vfy_log_n] = bits;
    vfy_log_n++;
}

static unsigned vfy_log_next[VFY_L];

/* The lane the search tries first for record i: a lane calls a site once per round in lane order, so
   after a record of the same site (loose sites: modulo the tag step) the lane after the previous
   record's, else lane 0. */
static int vfy_log_first(unsigned i, unsigned vs) {
    if (i == vs || !vfy_log_loose(vfy_log_site[i]) || vfy_log_key(vfy_log_site[i - 1]) != vfy_log_key(vfy_log_site[i]))
        return 0;
    return (vfy_log_lane[i - 1] + 1) % VFY_L;
}

/* The first lane, in the order that starts at vfy_log_first and wraps, from rank k on whose next scalar
   record may be vector record i (its rank in *rank), or -1. */
static int vfy_log_lane_for(unsigned i, unsigned vs, int k, int *rank) {
    int s = vfy_log_site[i], loose = vfy_log_loose(s), first = vfy_log_first(i, vs);
    for (; k < VFY_L; k++) {
        int l = (first + k) % VFY_L;
        unsigned j = vfy_log_next[l];
        if (j < vfy_log_mark[l + 1] && vfy_log_site[j] == s && (!loose || vfy_log_val[j] == vfy_log_val[i])) {
            *rank = k;
            return l;
        }
    }
    return -1;
}

/* A record as the search matches it: its site, and its value at a loose site. */
typedef struct { int site; uint64_t val; } vfy_log_key_t;
static vfy_log_key_t vfy_keys_scalar[VFY_LOG_MAX], vfy_keys_vector[VFY_LOG_MAX];

static int vfy_key_cmp(const void *a, const void *b) {
    const vfy_log_key_t *x = a, *y = b;
    if (x->site != y->site) return x->site < y->site ? -1 : 1;
    return x->val < y->val ? -1 : x->val > y->val;
}

static void vfy_keys(vfy_log_key_t *k, unsigned from, unsigned to) {
    for (unsigned i = from; i < to; i++) {
        k[i - from].site = vfy_log_site[i];
        k[i - from].val = vfy_log_loose(vfy_log_site[i]) ? vfy_log_val[i] : 0;
    }
    qsort(k, to - from, sizeof *k, vfy_key_cmp);
}

/* 1 if the vector records [vs, ve) and the lanes' scalar records are the same multiset of keys: what any
   attribution needs, so where they differ the search cannot succeed (it would spend its whole budget on a
   gang whose calls differ, tens of seconds each). */
static int vfy_log_same_keys(unsigned vs, unsigned ve) {
    unsigned n = ve - vs;
    if (n != vfy_log_mark[VFY_L] - vfy_log_mark[0]) return 0;
    vfy_keys(vfy_keys_scalar, vfy_log_mark[0], vfy_log_mark[VFY_L]);
    vfy_keys(vfy_keys_vector, vs, ve);
    for (unsigned i = 0; i < n; i++)
        if (vfy_key_cmp(&vfy_keys_scalar[i], &vfy_keys_vector[i]) != 0) return 0;
    return 1;
}

/* Attribute records [vs, ve) so that every lane's are its scalar records (loose sites by value, with a
   bounded search over their choices); 1 if that works, values of the other sites compared into vfy_log_bad. */
static int vfy_log_attribute(unsigned vs, unsigned ve) {
    unsigned long budget = 20000000;  /* steps, forward and back */
    int keys_checked = 0;
    for (int l = 0; l < VFY_L; l++) vfy_log_next[l] = vfy_log_mark[l];
    unsigned i = vs;
    for (;;) {
        int l = -1, rank = 0, done = i == ve;
        if (done) {
            done = 1;
            for (int k = 0; k < VFY_L; k++) done &= vfy_log_next[k] == vfy_log_mark[k + 1];
            if (done) break;
        } else {
            l = vfy_log_lane_for(i, vs, 0, &rank);
        }
        if (l >= 0) {
            if (budget-- == 0) return 0;
            vfy_log_lane[i] = l;
            vfy_log_rank[i] = rank;
            vfy_log_next[l]++;
            i++;
            continue;
        }
        if (!keys_checked) {  /* the first step back: can any attribution work? */
            keys_checked = 1;
            if (!vfy_log_same_keys(vs, ve)) return 0;
        }
        for (;;) {  /* back to the latest choice of a loose site that has another lane */
            if (i == vs || budget-- == 0) return 0;
            i--;
            vfy_log_next[vfy_log_lane[i]]--;
            if (!vfy_log_loose(vfy_log_site[i])) continue;
            l = vfy_log_lane_for(i, vs, vfy_log_rank[i] + 1, &rank);
            if (l >= 0) {
                vfy_log_lane[i] = l;
                vfy_log_rank[i] = rank;
                vfy_log_next[l]++;
                i++;
                break;
            }
        }
    }
    for (int l = 0; l < VFY_L; l++) vfy_log_next[l] = vfy_log_mark[l];
    for (unsigned k = vs; k < ve; k++) {
        int l = vfy_log_lane[k];
        if (vfy_log_val[vfy_log_next[l]++] != vfy_log_val[k]) vfy_log_bad[l] = 1;
    }
    return 1;
}

/* The fallback's counts per (lane, site): the lane's scalar records of the site and the vector records
   given to it so far, in an open-addressing table (linear in the records: counting them again for each
   record was quadratic, minutes for a gang of a few thousand records that differ). */
#define VFY_CNT_SLOTS (2U * VFY_LOG_MAX)
static int vfy_cnt_lane[VFY_CNT_SLOTS], vfy_cnt_site[VFY_CNT_SLOTS];
static unsigned vfy_cnt_total[VFY_CNT_SLOTS], vfy_cnt_used[VFY_CNT_SLOTS], vfy_cnt_filled[VFY_LOG_MAX];
static unsigned char vfy_cnt_full[VFY_CNT_SLOTS];
static unsigned vfy_cnt_nfilled;

/* The slot of (l, s): its own, or the empty one where it would go. */
static unsigned vfy_cnt_slot(int l, int s) {
    unsigned h = ((unsigned)l * 0x9e3779b1U ^ (unsigned)s * 0x85ebca77U) & (VFY_CNT_SLOTS - 1);
    while (vfy_cnt_full[h] && (vfy_cnt_lane[h] != l || vfy_cnt_site[h] != s)) h = (h + 1) & (VFY_CNT_SLOTS - 1);
    return h;
}

static void vfy_log_check(unsigned vs, unsigned ve) {
    for (int l = 0; l < VFY_L; l++) vfy_log_bad[l] = vfy_log_lost != 0;
    if (!vfy_log_lost && vfy_log_attribute(vs, ve)) return;
    for (int l = 0; l < VFY_L; l++) vfy_log_bad[l] = vfy_log_lost != 0;
    for (int l = 0; l < VFY_L; l++)
        for (unsigned j = vfy_log_mark[l]; j < vfy_log_mark[l + 1]; j++) {
            unsigned h = vfy_cnt_slot(l, vfy_log_site[j]);
            if (!vfy_cnt_full[h]) {
                vfy_cnt_full[h] = 1;
                vfy_cnt_lane[h] = l;
                vfy_cnt_site[h] = vfy_log_site[j];
                vfy_cnt_total[h] = vfy_cnt_used[h] = 0;
                vfy_cnt_filled[vfy_cnt_nfilled++] = h;
            }
            vfy_cnt_total[h]++;
        }
    for (unsigned i = vs; i < ve; i++) {  /* to the lane that has had the fewest records of its site so far */
        int s = vfy_log_site[i], lane = -1;
        unsigned best = 0, at = 0;
        for (int l = 0; l < VFY_L; l++) {
            unsigned h = vfy_cnt_slot(l, s);
            if (vfy_cnt_full[h] && vfy_cnt_used[h] < vfy_cnt_total[h] && (lane < 0 || vfy_cnt_used[h] < best)) {
                lane = l;
                best = vfy_cnt_used[h];
                at = h;
            }
        }
        vfy_log_lane[i] = lane;
        if (lane < 0)
            for (int l = 0; l < VFY_L; l++) vfy_log_bad[l] = 1;
        else
            vfy_cnt_used[at]++;
    }
    for (unsigned k = 0; k < vfy_cnt_nfilled; k++) vfy_cnt_full[vfy_cnt_filled[k]] = 0;
    vfy_cnt_nfilled = 0;
    for (int l = 0; l < VFY_L; l++) vfy_log_next[l] = vfy_log_mark[l];
    for (unsigned i = vs; i < ve; i++) {  /* every lane's records in vector order against its scalar ones */
        int l = vfy_log_lane[i];
        if (l < 0) continue;
        unsigned j = vfy_log_next[l]++;
        if (j >= vfy_log_mark[l + 1] || vfy_log_site[j] != vfy_log_site[i] || vfy_log_val[j] != vfy_log_val[i])
            vfy_log_bad[l] = 1;
    }
    for (int l = 0; l < VFY_L; l++)
        if (vfy_log_next[l] != vfy_log_mark[l + 1]) vfy_log_bad[l] = 1;
}

static void vfy_log_show(int l, unsigned vs, unsigned ve) {
    printf("mismatch:   calls: DIFFER%s scalar [", vfy_log_lost ? " (log overflow)" : "");
    for (unsigned j = vfy_log_mark[l]; j < vfy_log_mark[l + 1]; j++)
        printf("%s%d:0x%llx", j > vfy_log_mark[l] ? " " : "", vfy_log_site[j], (unsigned long long)vfy_log_val[j]);
    printf("] vector [");
    int first = 1;
    for (unsigned i = vs; i < ve; i++) {
        if (vfy_log_lane[i] != l && vfy_log_lane[i] >= 0) continue;
        printf("%s%s%d:0x%llx", first ? "" : " ", vfy_log_lane[i] < 0 ? "?" : "", vfy_log_site[i],
               (unsigned long long)vfy_log_val[i]);
        first = 0;
    }
    printf("]\n");
}

//@endif
//@if observed
//@ errno (and globals the function assigns) after the calls: errno printed with its name.

__attribute__((unused)) static void vfy_show_errno(uint64_t b, uint64_t before) {
    int e = (int)(uint32_t)b;
    const char *name = 0;
    switch (e) {
    case EDOM: name = "EDOM"; break;
    case ERANGE: name = "ERANGE"; break;
    case EINVAL: name = "EINVAL"; break;
    case ENOMEM: name = "ENOMEM"; break;
#ifdef EILSEQ
    case EILSEQ: name = "EILSEQ"; break;
#endif
    default: break;
    }
    printf("%d", e);
    if (b == before) printf(" (unchanged)");
    else if (name) printf(" (%s)", name);
}

//@endif
//@if ulp
//@ ULP mode (verify(ulp_bound=...)): NaN matches NaN, an infinity only itself, +0 and -0 are 1 apart;
//@ otherwise the distance is the number of floats (doubles) between the two values, counting zero once.
//@ (tests/test_libm.py checks vfy_ulp: verify.py's _ULP_CODE is this section.)

__attribute__((unused)) static uint64_t vfy_ulp(int size, uint64_t a, uint64_t b) {
    uint64_t sign = size == 4 ? 0x80000000ULL : 0x8000000000000000ULL;
    uint64_t mag = sign - 1, inf = size == 4 ? 0x7f800000ULL : 0x7ff0000000000000ULL;
    int an = (a & mag) > inf, bn = (b & mag) > inf;
    if (an || bn) return an && bn ? 0 : UINT64_MAX;
    if (a == b) return 0;
    if ((a & mag) == inf || (b & mag) == inf) return UINT64_MAX;
    if ((a & mag) == 0 && (b & mag) == 0) return 1;
    int64_t oa = (a & sign) ? -(int64_t)(a & mag) : (int64_t)(a & mag);
    int64_t ob = (b & sign) ? -(int64_t)(b & mag) : (int64_t)(b & mag);
    return oa > ob ? (uint64_t)(oa - ob) : (uint64_t)(ob - oa);
}
static uint64_t vfy_maxulp;
/* the ULP distance of a and b, kept in vfy_maxulp when larger (UINT64_MAX: not comparable) */
__attribute__((unused)) static uint64_t vfy_ulp_seen(int size, uint64_t a, uint64_t b) {
    uint64_t d = vfy_ulp(size, a, b);
    if (d > vfy_maxulp) vfy_maxulp = d;
    return d;
}
//@endif
//@ Per parameter: the edge values of varying and uniform values (hex arrays), the random value
//@ functions vfy_randN (and vfy_randN_M for the members of a uniform array's elements).
${inputs}
/* probe mode (arguments: input numbers): only the scalar calls of those inputs, each announced */
static unsigned long long vfy_probe[64];
static int vfy_nprobe;
static int vfy_probing(unsigned long long k) {
    for (int j = 0; j < vfy_nprobe; j++) if (vfy_probe[j] == k) return 1;
    return 0;
}

int main(int argc, char **argv) {
    for (int j = 1; j < argc && vfy_nprobe < 64; j++) vfy_probe[vfy_nprobe++] = strtoull(argv[j], 0, 10);
    unsigned long long vfy_mism = 0;
    vfy_state = ${seed}ULL;
    //@ Per-lane arrays: the scalar side spelled like the prototype, the vector side in stdint names;
    //@ vfy_b_*: bit patterns.
    ${declarations}
    vfy_catch_faults();
    //@if time_limit
    signal(SIGALRM, vfy_on_signal); alarm(${time_limit}U);
    //@endif
    //@ The arrays of uniform pointers, filled with random bits (the same for the scalar and the vector run).
    ${uniform_arrays}
    for (unsigned long long g = 0; g < VFY_TOTAL / VFY_L; g++) {
        //@if uniform_values
        //@ One value per gang: the uniform edge combinations (their product, or a sample), then random ones.
        if (g * VFY_L < VFY_NEDGE) {
            //@if uniform_product
            unsigned long long q = (g / VFY_GV) % ${uproduct}ULL;
            //@endif
            ${uniform_edges}
        } else {
            ${uniform_random}
        }
        //@endif
        for (int l = 0; l < VFY_L; l++) {
            unsigned long long k = g * VFY_L + l;
            //@if kv
            //@ (the input's place in the varying edge plan)
            unsigned long long kv = (g % VFY_GV) * VFY_L + l;
            //@endif
            //@if varying_values
            if (k < VFY_NEDGE) {
                ${varying_edges}
            } else {
                ${varying_random}
            }
            //@else
            (void)k;
            //@endif
            ${lane_inputs}
        }
        //@ (the scalar calls)
        //@if call_log
        vfy_log_n = 0; vfy_log_lost = 0;
        //@endif
        //@ Globals (errno): the same pattern before the scalar calls and before the vector call, compared
        //@ after them; a difference is reported on the last lane whose scalar call changed the global (else
        //@ lane 0). (errno is read and written as the int it is: GCC takes a libm call to change errno only
        //@ through int accesses, and would otherwise keep a value stored before the call across it.)
        ${observed_start}
        //@ (a moving uniform pointer's element as the gang's calls start: what a report of its inputs shows)
        ${moving_start}
        vfy_at_gang = g; VFY_WHERE(1);
        for (int l = 0; l < VFY_L; l++) {
            vfy_at_input = g * VFY_L + l;
            if (vfy_nprobe) {
                if (!vfy_probing(vfy_at_input)) continue;
                printf("vfy_input %llu:", vfy_at_input);
                ${show_inputs}
                printf("\n"); fflush(stdout);
                fprintf(stderr, "vfy_input %llu\n", vfy_at_input);
            }
            //@if call_log
            vfy_log_mark[l] = vfy_log_n;
            //@endif
            ${scalar_call}
        }
        ${observed_scalar}
        VFY_WHERE(0);
        if (vfy_nprobe) continue;
        //@ (the vector call)
        //@if call_log
        vfy_log_mark[VFY_L] = vfy_log_n;
        unsigned vfy_vs = vfy_log_n;
        //@endif
        VFY_WHERE(2);
        {
            ${vector_call}
        }
        VFY_WHERE(0);
        //@if call_log
        unsigned vfy_ve = vfy_log_n;
        vfy_log_check(vfy_vs, vfy_ve);
        //@endif
        //@ (the comparison)
        for (int l = 0; l < VFY_L; l++) {
            ${compare}
            if (vfy_mism++ >= ${max_printed}) continue;
            printf("mismatch: input %llu (%s) lane %d:", g * VFY_L + l, g * VFY_L + l < VFY_NEDGE ? "edge" : "random", l);
            ${show_inputs}
            printf("\n");
            ${show_outputs}
            //@if call_log
            if (vfy_log_bad[l]) vfy_log_show(l, vfy_vs, vfy_ve);
            //@endif
            ${show_observed}
        }
    }
    //@if uniform_pointers
    unsigned long long vfy_amism = 0;  /* array mismatches (printed up to MAX_PRINTED) */
    //@endif
    ${compare_arrays}
    printf("verify: ${scalar_name} vs ${vector_name} [${isa}, ${lanes} lanes]: %llu inputs (%llu edge + %llu random), %llu mismatches", VFY_TOTAL, VFY_NEDGE, VFY_TOTAL - VFY_NEDGE, vfy_mism);
    //@if ulp
    //@ The largest difference ("inf": a NaN or an infinity against a number).
    if (vfy_maxulp == UINT64_MAX) printf(", largest difference inf ULP");
    else printf(", largest difference %llu ULP", (unsigned long long)vfy_maxulp);
    printf(" (bound ${ulp_bound})");
    //@endif
    printf("\n");
    return vfy_mism != 0;
}
