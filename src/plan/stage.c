/* stage.c: a stage's figures from its units' cached costs, and the step
 * time of a candidate by the search's formula.
 *
 * A stage on a mesh takes the sum of its units' times (the re-layout
 * between two of its units is not priced: a heuristic), until it has been
 * sharded whole (plan_reshard): then its own. Under 1F1B
 * (Narayanan et al., SC'21, section 2.2) with m micro-batches, stage s of
 * P keeps min(m, P - s) micro-batches' activations at its peak. The step
 * is timed op by op in 1F1B's order, each op as soon as its stage is free
 * and its input has crossed from the neighbouring stage (one hop of the
 * link between them, the tensors split over the pairs of members); the
 * stages then all-reduce their gradients across replicas, from the
 * time their last backward ends (the last stage's first), and run their
 * optimizers. Gradient sync inside a stage's mesh is spread over its
 * backward passes. The cluster simulator runs the same plan and judges
 * (judge.c); this formula only ranks candidates. */
#include <math.h>
#include <stdlib.h>
#include "hw/net_internal.h"
#include "plan/plan_internal.h"

void plan_stage_cost_of(const plan_ctx *X, int32_t first, int32_t end, int32_t mesh, plan_stage_cost *out)
{
    const plan_stage_entry *whole = plan_stage_find(X, first, end, mesh);
    if (whole) {
        *out = whole->cost;
        return;
    }
    *out = (plan_stage_cost){0};
    for (int32_t u = first; u < end; u++) {
        const plan_cost *c = &X->cost[(size_t)X->units[u].kind * (size_t)X->n_meshes + (size_t)mesh];
        out->forward += c->forward;
        out->backward += c->backward;
        out->collective += c->collective;
        out->parameters += c->parameters;
        out->state += c->state;
        out->activations += c->activations;
        out->sync += c->sync;
    }
}

double plan_stage_memory(const plan_stage_cost *c, int32_t in_flight)
{
    return c->state + in_flight * c->activations;
}

/* The optimizer's pass over the state: read and write it once at the
 * streaming rate (the cluster simulator's rule, src/cluster/optime.c). */
static double optimizer_time(const pp_hw_device_type *t, double state)
{
    double efficiency = t->streaming_efficiency > 0 ? t->streaming_efficiency : t->efficiency_memory;
    return 2 * state / (t->memory_bandwidth * efficiency);
}

void plan_stage_offsets(const plan_ctx *X, const plan_candidate *c, int32_t *offset)
{
    offset[0] = 0;
    for (int32_t s = 0; s < c->P; s++)
        offset[s + 1] = offset[s] + X->meshes[c->mesh[s]].devices;
}

/* The link between devices a and b: inside their node, or between nodes. */
static pp_hw_link link_between(const plan_ctx *X, int32_t type_a, int32_t a, int32_t b)
{
    const pp_cluster *cl = X->cluster;
    if (cl->device_node[a] == cl->device_node[b])
        return X->types[type_a].intra;
    pp_hw_link l = X->types[type_a].inter;
    for (int32_t k = 0; k < X->n_types; k++)
        if (X->types[k].type == cl->nodes[cl->device_node[b]].type && X->types[k].inter.bandwidth < l.bandwidth)
            l = X->types[k].inter;
    return l;
}

/* Op q of stage s's 1F1B order (Narayanan et al.'s, as Megatron-LM runs
 * it): min(P - s - 1, m) warm-up forwards, forward and backward in turn,
 * then the backwards left. */
static void op_of(int32_t P, int32_t s, int32_t m, int32_t q, bool *forward, int32_t *micro)
{
    int32_t warm = P - s - 1 < m ? P - s - 1 : m, steady = 2 * (m - warm);
    if (q < warm) {
        *forward = true;
        *micro = q;
    } else if (q - warm < steady) {
        *forward = (q - warm) % 2 == 0;
        *micro = *forward ? warm + (q - warm) / 2 : (q - warm) / 2;
    } else {
        *forward = false;
        *micro = (m - warm) + (q - warm - steady);
    }
}

/* The 1F1B timing of one replica: every op as early as its stage's order
 * and its input (the neighbour's op plus one hop) allow. last[s] gets the
 * end of stage s's last backward; false when out of memory. */
static bool timing(int32_t P, int32_t M, const double *F, const double *B, const double *hop, double *last)
{
    double *fend = malloc((size_t)P * (size_t)M * sizeof *fend), *bend = malloc((size_t)P * (size_t)M * sizeof *bend);
    int32_t *next = calloc(3 * (size_t)P, sizeof *next), *nf = next + P, *nb = nf + P;
    double *clock = calloc((size_t)P, sizeof *clock);
    if (!fend || !bend || !next || !clock) {
        free(fend);
        free(bend);
        free(next);
        free(clock);
        return false;
    }
    for (int32_t done = 0, progress = 1; done < 2 * P * M && progress;) {
        progress = 0;
        for (int32_t s = 0; s < P; s++)
            while (next[s] < 2 * M) {
                bool forward;
                int32_t m;
                op_of(P, s, M, next[s], &forward, &m);
                double ready;
                /* a stage runs its forwards, and its backwards, in micro-batch order */
                if (forward && s > 0) {
                    if (nf[s - 1] <= m)
                        break;
                    ready = fend[(s - 1) * M + m] + hop[s - 1];
                } else if (!forward && s + 1 < P) {
                    if (nb[s + 1] <= m)
                        break;
                    ready = bend[(s + 1) * M + m] + hop[s];
                } else
                    ready = 0;
                (forward ? nf : nb)[s]++;
                clock[s] = fmax(clock[s], ready) + (forward ? F[s] : B[s]);
                (forward ? fend : bend)[s * M + m] = clock[s];
                next[s]++;
                done++;
                progress = 1;
            }
    }
    for (int32_t s = 0; s < P; s++)
        last[s] = clock[s];
    free(fend);
    free(bend);
    free(next);
    free(clock);
    return true;
}

/* The hops with the stages' offsets in a replica's block of ids given. */
static void hops(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, const int32_t *offset, double *hop)
{
    int32_t members = offset[c->P];
    for (int32_t s = 0; s + 1 < c->P; s++) {
        const plan_mesh *a = &X->meshes[c->mesh[s]], *b = &X->meshes[c->mesh[s + 1]];
        int32_t k = a->devices < b->devices ? a->devices : b->devices;
        pp_hw_link l = ids ? link_between(X, a->type, ids[offset[s]], ids[offset[s + 1]]) : X->types[a->type].intra;
        if (ids && X->cluster->device_node[ids[offset[s]]] != X->cluster->device_node[ids[offset[s + 1]]]) {
            /* the replicas move in step: every pair of members that leaves
             * this node at the same time shares its NICs */
            int32_t home = X->cluster->device_node[ids[offset[s]]], flows = 0;
            for (int32_t r = 0; r < c->R; r++)
                flows += k * (X->cluster->device_node[ids[r * members + offset[s]]] == home);
            int32_t ports = X->types[a->type].ports > 0 ? X->types[a->type].ports : 1;
            l.bandwidth *= flows > ports ? (double)ports / flows : 1;
        }
        hop[s] = pp_hw_p2p_time(l, X->send[c->cut[s + 1] - 1] / k);
    }
}

bool plan_hops(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, double *hop)
{
    int32_t *offset = malloc(((size_t)c->P + 1) * sizeof *offset);
    if (!offset)
        return false;
    plan_stage_offsets(X, c, offset);
    hops(X, c, ids, offset, hop);
    free(offset);
    return true;
}

/* What stage s adds after its last backward: its gradients' ring over
 * the replicas, then its optimizer. */
static double tail(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, const int32_t *offset,
                   int32_t members, int32_t s, const plan_stage_cost *sc)
{
    const plan_mesh *m = &X->meshes[c->mesh[s]];
    double reduce = 0;
    if (c->R > 1) {
        /* one ring per member over the replicas; where it leaves a node,
         * the members' rings share the node's NICs */
        pp_hw_link l = X->types[m->type].intra;
        if (ids && X->cluster->device_node[ids[offset[s]]] != X->cluster->device_node[ids[(c->R - 1) * members + offset[s]]]) {
            l = X->types[m->type].inter;
            int32_t ports = X->types[m->type].ports > 0 ? X->types[m->type].ports : 1;
            l.bandwidth *= m->devices > ports ? (double)ports / m->devices : 1;
        }
        reduce = pp_hw_ring_allreduce_time(l, c->R, sc->parameters);
    }
    return reduce + optimizer_time(X->types[m->type].type, sc->state);
}

/* The step by the formula, with the arrays it needs given: offset [P + 1],
 * four doubles a stage in work, sc [P]. */
static double model_time(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, double *pipeline,
                         int32_t *offset, double *work, plan_stage_cost *sc)
{
    int32_t P = c->P;
    double *F = work, *B = F + P, *hop = B + P, *last = hop + P;
    plan_stage_offsets(X, c, offset);
    int32_t members = offset[P];
    for (int32_t s = 0; s < P; s++) {
        plan_stage_cost_of(X, c->cut[s], c->cut[s + 1], c->mesh[s], &sc[s]);
        F[s] = sc[s].forward;
        B[s] = sc[s].backward + sc[s].sync / c->M;
    }
    hops(X, c, ids, offset, hop);
    if (!timing(P, c->M, F, B, hop, last))
        return INFINITY;
    double end = 0;
    if (pipeline) {
        *pipeline = 0;
        for (int32_t s = 0; s < c->P; s++)
            *pipeline = fmax(*pipeline, last[s]);
    }
    for (int32_t s = 0; s < c->P; s++)
        end = fmax(end, last[s] + tail(X, c, ids, offset, members, s, &sc[s]));
    return end;
}

bool plan_tails(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, double *out)
{
    int32_t *offset = malloc(((size_t)c->P + 1) * sizeof *offset);
    if (!offset)
        return false;
    plan_stage_offsets(X, c, offset);
    for (int32_t s = 0; s < c->P; s++) {
        plan_stage_cost sc;
        plan_stage_cost_of(X, c->cut[s], c->cut[s + 1], c->mesh[s], &sc);
        out[s] = tail(X, c, ids, offset, offset[c->P], s, &sc);
    }
    free(offset);
    return true;
}

double plan_model_time(const plan_ctx *X, const plan_candidate *c, const int32_t *ids, double *pipeline)
{
    int32_t *offset = malloc(((size_t)c->P + 1) * sizeof *offset);
    double *work = malloc(4 * (size_t)c->P * sizeof *work);
    plan_stage_cost *sc = malloc((size_t)c->P * sizeof *sc);
    double t = offset && work && sc ? model_time(X, c, ids, pipeline, offset, work, sc) : INFINITY;
    free(offset);
    free(work);
    free(sc);
    return t;
}
