/* search.c: the stage search. For each count of data-parallel replicas R
 * (dividing every device type's count and the step's micro-batches), the
 * exact part is Alpa's stage DP (Zheng et al., OSDI '22, section 5.2):
 * over cut points between units, device groups and each stage's mesh, it
 * minimises the 1F1B step
 *     T = sum_s t_s + (m - 1) max_s t_s,   t_s = F_s + B_s of stage s,
 * where Alpa enumerates the cap t_max, this keeps for every suffix state
 * (first unit, stages left, devices used per type) the Pareto set of
 * (sum, max) pairs, which is the same optimum without a grid over t_max.
 * A stage's memory is checked at its place (the stages after it fix how
 * many micro-batches it holds). The set is capped at PARETO_CAP pairs a
 * state, the best by T kept: exact as long as no set overflows, which the
 * small models here never reach. What is heuristic is the objective (the
 * transfers, the gradient all-reduce and the optimizer are left to the
 * judge) and the additive stage cost (stage.c); so the best plans by T
 * are timed op by op (stage.c) and the best few of those go to the judge. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "plan/plan_internal.h"

#define PARETO_CAP 24
/* Plans of one replica count timed op by op, the best by the DP's
 * objective first. */
#define RANKED(max_out) ((max_out) * 4 > 64 ? (max_out) * 4 : 64)

typedef struct {
    double sum, max, key; /* key: the objective, when a set is cut to PARETO_CAP */
    int32_t next, mesh; /* the stage ends before unit next, on mesh */
    int32_t child;      /* the entry of the rest (index into entries), -1 at the end */
} entry;

typedef struct {
    const plan_ctx *X;
    int32_t R, M, L, P, U;
    int32_t *budget, *stride;   /* [type]: devices a replica has; the state's digit */
    double *pass, *state, *act; /* [mesh][unit + 1] prefix sums */
    int32_t *bad;               /* [mesh][unit + 1] prefix count of units the mesh has no cost for */
    int32_t *first, *count;     /* [state] into entries */
    entry *entries;
    int n_entries, cap;
    entry *scratch;
    int n_scratch, scratch_cap;
    bool check_memory;
    const pp_deadline *until; /* NULL: none */
} dp;

static size_t at(const dp *D, int32_t i, int32_t a, int32_t u)
{
    return ((size_t)i * (size_t)(D->P + 1) + (size_t)a) * (size_t)D->U + (size_t)u;
}

static double objective(const dp *D, const entry *e)
{
    return e->sum + (D->M - 1) * e->max;
}

static int by_sum(const void *p, const void *q)
{
    const entry *a = p, *b = q;
    if (a->sum != b->sum)
        return a->sum < b->sum ? -1 : 1;
    return (a->max > b->max) - (a->max < b->max);
}

static int by_key(const void *p, const void *q)
{
    const entry *a = p, *b = q;
    return (a->key > b->key) - (a->key < b->key);
}

/* Keeps the Pareto set of the scratch entries, at most PARETO_CAP. */
static bool settle(dp *D, size_t s)
{
    D->first[s] = D->n_entries;
    D->count[s] = 0;
    if (D->n_scratch == 0)
        return true;
    qsort(D->scratch, (size_t)D->n_scratch, sizeof *D->scratch, by_sum);
    int n = 0;
    for (int k = 0; k < D->n_scratch; k++)
        if (n == 0 || D->scratch[k].max < D->scratch[n - 1].max)
            D->scratch[n++] = D->scratch[k];
    if (n > PARETO_CAP) {
        for (int k = 0; k < n; k++)
            D->scratch[k].key = objective(D, &D->scratch[k]);
        qsort(D->scratch, (size_t)n, sizeof *D->scratch, by_key);
        n = PARETO_CAP;
    }
    if (!pp_grow((void **)&D->entries, &D->cap, D->n_entries + n, sizeof *D->entries))
        return false;
    memcpy(D->entries + D->n_entries, D->scratch, (size_t)n * sizeof *D->scratch);
    D->first[s] = D->n_entries;
    D->count[s] = n;
    D->n_entries += n;
    return true;
}

static bool push(dp *D, entry e)
{
    if (!pp_grow((void **)&D->scratch, &D->scratch_cap, D->n_scratch + 1, sizeof *D->scratch))
        return false;
    D->scratch[D->n_scratch++] = e;
    return true;
}

/* Stage [i, j) on mesh k as the a-th stage from the end, the rest in state r. */
static bool extend(dp *D, int32_t i, int32_t j, int32_t k, int32_t a, int32_t u_rest)
{
    const plan_ctx *X = D->X;
    size_t row = (size_t)k * (size_t)(D->L + 1);
    if (D->bad[row + j] - D->bad[row + i] > 0)
        return true;
    int32_t in_flight = a < D->M ? a : D->M;
    double t = D->pass[row + j] - D->pass[row + i];
    double memory = D->state[row + j] - D->state[row + i] + in_flight * (D->act[row + j] - D->act[row + i]);
    if (D->check_memory && memory > plan_capacity(X, X->meshes[k].type))
        return true;
    size_t r = at(D, j, a - 1, u_rest);
    for (int32_t e = D->first[r]; e < D->first[r] + D->count[r]; e++) {
        entry x = {D->entries[e].sum + t, fmax(D->entries[e].max, t), 0, j, k, e};
        if (!push(D, x))
            return false;
    }
    return true;
}

static bool fill(dp *D)
{
    const plan_ctx *X = D->X;
    size_t end = at(D, D->L, 0, 0);
    entry base = {0, 0, 0, D->L, -1, -1};
    D->n_scratch = 0;
    if (!push(D, base) || !settle(D, end))
        return false;
    for (int32_t i = D->L - 1; i >= 0; i--)
        for (int32_t a = 1; a <= D->P && a <= D->L - i; a++)
            for (int32_t u = 0; u < D->U; u++) {
                if (u == 0 && D->until && pp_deadline_passed(D->until))
                    return false;
                D->n_scratch = 0;
                for (int32_t k = 0; k < X->n_meshes; k++) {
                    const plan_mesh *m = &X->meshes[k];
                    int32_t digit = u / D->stride[m->type] % (D->budget[m->type] + 1);
                    if (digit < m->devices)
                        continue;
                    int32_t rest = u - m->devices * D->stride[m->type];
                    for (int32_t j = i + 1; j <= D->L - (a - 1); j++)
                        if ((a > 1 || j == D->L) && !extend(D, i, j, k, a, rest))
                            return false;
                }
                if (!settle(D, at(D, i, a, u)))
                    return false;
            }
    return true;
}

static bool prefix_sums(dp *D)
{
    const plan_ctx *X = D->X;
    size_t n = (size_t)X->n_meshes * (size_t)(D->L + 1);
    D->pass = calloc(n, sizeof *D->pass);
    D->state = calloc(n, sizeof *D->state);
    D->act = calloc(n, sizeof *D->act);
    D->bad = calloc(n, sizeof *D->bad);
    if (!D->pass || !D->state || !D->act || !D->bad)
        return false;
    for (int32_t k = 0; k < X->n_meshes; k++) {
        size_t row = (size_t)k * (size_t)(D->L + 1);
        for (int32_t u = 0; u < D->L; u++) {
            size_t c = (size_t)X->units[u].kind * (size_t)X->n_meshes + (size_t)k;
            const plan_cost *pc = &X->cost[c];
            D->pass[row + u + 1] = D->pass[row + u] + pc->forward + pc->backward + pc->sync / D->M;
            D->state[row + u + 1] = D->state[row + u] + pc->state;
            D->act[row + u + 1] = D->act[row + u] + pc->activations;
            D->bad[row + u + 1] = D->bad[row + u] + !X->cost_ok[c];
        }
    }
    return true;
}

static void release(dp *D)
{
    free(D->pass);
    free(D->state);
    free(D->act);
    free(D->bad);
    free(D->first);
    free(D->count);
    free(D->entries);
    free(D->scratch);
    free(D->budget);
    free(D->stride);
}

bool plan_candidate_make(const plan_ctx *X, int32_t R, int32_t P, plan_candidate *c)
{
    *c = (plan_candidate){.R = R, .M = (int32_t)(X->n_micro / R), .P = P};
    c->cut = pp_arena_calloc(X->arena, (size_t)P + 1, sizeof *c->cut);
    c->mesh = pp_arena_calloc(X->arena, (size_t)P, sizeof *c->mesh);
    if (!c->cut || !c->mesh)
        return false;
    c->cut[P] = X->n_units;
    return true;
}

/* The candidate entry e of state (0, P, u) spells out; false when out of
 * memory. */
static bool unwind(const dp *D, int32_t P, int32_t e, plan_candidate *c)
{
    if (!plan_candidate_make(D->X, D->R, P, c))
        return false;
    c->objective = objective(D, &D->entries[e]);
    for (int32_t s = 0; s < P; s++) {
        const entry *x = &D->entries[e];
        c->cut[s + 1] = x->next;
        c->mesh[s] = x->mesh;
        e = x->child;
    }
    return true;
}

static int by_model(const void *p, const void *q)
{
    const plan_candidate *a = p, *b = q;
    return (a->model_time > b->model_time) - (a->model_time < b->model_time);
}

/* Adds the candidates of R replicas to out (n of max_out so far). */
static int32_t search_replicas(const plan_ctx *X, int32_t R, bool check_memory, const pp_deadline *until,
                               plan_candidate *out, int32_t n, int32_t max_out)
{
    dp D = {.X = X, .R = R, .M = (int32_t)(X->n_micro / R), .L = X->n_units, .check_memory = check_memory,
            .until = until};
    D.U = 1;
    D.budget = malloc((size_t)X->n_types * sizeof *D.budget);
    D.stride = malloc((size_t)X->n_types * sizeof *D.stride);
    if (!D.budget || !D.stride) {
        release(&D);
        return n;
    }
    int32_t devices = 0;
    for (int32_t t = 0; t < X->n_types; t++) {
        D.budget[t] = X->types[t].count / R;
        D.stride[t] = D.U;
        /* a state per count of each type's devices used: past 2^31 of
         * them (many types, many devices a replica) this R has no DP */
        if (D.U > INT32_MAX / (D.budget[t] + 1)) {
            release(&D);
            return n;
        }
        D.U *= D.budget[t] + 1;
        devices += D.budget[t];
    }
    D.P = X->n_units < devices ? X->n_units : devices;
    size_t states = (size_t)(D.L + 1) * (size_t)(D.P + 1) * (size_t)D.U;
    D.first = calloc(states, sizeof *D.first);
    int32_t *ids = malloc((size_t)X->cluster->device_count * sizeof *ids);
    D.count = calloc(states, sizeof *D.count);
    entry *finals = NULL;
    int n_finals = 0, cap = 0;
    bool ok = D.first && D.count && ids && prefix_sums(&D) && fill(&D);
    /* every plan the DP ends with, by its objective: only the best few are
     * timed op by op (a timing is P x M ops) */
    for (int32_t P = 1; ok && P <= D.P; P++)
        for (int32_t u = 1; ok && u < D.U; u++) {
            size_t s = at(&D, 0, P, u);
            for (int32_t e = D.first[s]; ok && e < D.first[s] + D.count[s]; e++) {
                ok = pp_grow((void **)&finals, &cap, n_finals + 1, sizeof *finals);
                if (ok)
                    finals[n_finals++] = (entry){.key = objective(&D, &D.entries[e]), .next = P, .child = e};
            }
        }
    if (ok && n_finals > 0)
        qsort(finals, (size_t)n_finals, sizeof *finals, by_key);
    for (int k = 0; ok && k < n_finals && k < RANKED(max_out); k++) {
        plan_candidate c;
        if (!(ok = unwind(&D, finals[k].next, finals[k].child, &c)))
            break;
        pp_error ignored = {0};
        c.model_time = plan_assign_devices(X, &c, ids, &ignored) == PP_OK ? plan_model_time(X, &c, ids, NULL)
                                                                          : plan_model_time(X, &c, NULL, NULL);
        if (n < max_out)
            out[n++] = c;
        else if (c.model_time < out[max_out - 1].model_time)
            out[max_out - 1] = c;
        else
            continue;
        qsort(out, (size_t)n, sizeof *out, by_model);
    }
    free(finals);
    release(&D);
    free(ids);
    return n;
}

int32_t plan_search(const plan_ctx *X, bool check_memory, const pp_deadline *until, plan_candidate *out,
                    int32_t max_out)
{
    int32_t n = 0;
    /* the most replicas first: the fewest devices a replica, the smallest
     * DP; once there are candidates, a DP still running at `until` is
     * dropped, and the replica counts after it are not tried */
    for (int32_t R = (int32_t)(X->n_micro < INT32_MAX ? X->n_micro : INT32_MAX); R >= 1; R--) {
        bool divides = X->n_micro % R == 0;
        for (int32_t t = 0; t < X->n_types; t++)
            divides &= X->types[t].count % R == 0;
        if (X->req->microbatches > 0)
            divides &= X->n_micro / R == X->req->microbatches;
        if (divides && (n == 0 || !until || !pp_deadline_passed(until)))
            n = search_replicas(X, R, check_memory, n > 0 ? until : NULL, out, n, max_out);
    }
    return n;
}
