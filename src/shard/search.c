/* search.c: the Monte Carlo tree search of paper 004 section 4.
 *
 * A tree node is a state: the set of actions applied, kept as their sorted
 * indices, so every order of the same actions reaches one node (a
 * transposition table, section 4.3). Each node's first child is the stop
 * action, which scores the node's own state; its other children are tried
 * in a shuffled order, an invalid one (an axis twice on a tensor, a size
 * that does not divide) being dropped when met. Past the tree a rollout
 * applies random valid actions, stopping with probability ROLLOUT_STOP at
 * each step (short trajectories, as the paper weighs them), up to
 * max_depth actions. The reward of a trajectory is 1 / C(s) of its last
 * state.
 *
 * A round selects `trajectories` leaves one after another (a virtual visit
 * on each node passed, so they spread), runs their rollouts and cost
 * evaluations on the worker threads, then backs the rewards up in
 * trajectory order. Each rollout draws from its own generator seeded by
 * (seed, round, trajectory), so the result does not depend on the thread
 * count. The rounds stop after `patience` rounds without a better state
 * (the paper's early termination) or at the timeout. A hill climb over
 * single additions and removals then polishes the best state (not in the
 * paper: see polish()). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/grow.h"
#include "core/threads.h"
#include "shard/cost_internal.h"
#include "shard/action_space.h"

#define ROLLOUT_STOP 0.3
/* UCT's exploration weight on rewards rescaled to [0, 1]. Tried at 0.25,
 * 0.5 and 1 on the chess model (two meshes) and ResNet-50 before the hill
 * climb existed: the plans differed by under 2% with no value best on all
 * three; 1 was kept. */
#define EXPLORATION 1.0
/* Child markers (UNTRIED, INVALID) and what expand() returns besides a node
 * (STOP, ALL_TRIED, OUT_OF_MEMORY). */
enum { STOP = -1, UNTRIED = -2, INVALID = -3, ALL_TRIED = -4, OUT_OF_MEMORY = -5, ROLLOUT_TRIES = 8 };

typedef struct {
    int32_t depth;
    int32_t *key;          /* sorted action indices */
    uint64_t hash;
    int32_t visits;
    double reward;         /* summed over visits */
    int32_t stop_visits;
    double stop_reward;
    int32_t n_children;    /* 0 until the node is first expanded */
    int32_t *child_action; /* shuffled untried actions, then the tried ones */
    int32_t *child_node;   /* UNTRIED, INVALID or a node index */
    int32_t next_untried;  /* -1 before the stop child is tried */
} node;

typedef struct {
    int32_t n_path;
    int32_t *path;         /* max_depth + 2 nodes */
    bool stopped;          /* ended on a stop child: no rollout */
    bool skipped;          /* not evaluated: the deadline passed before its turn */
    uint64_t seed;
    int32_t depth;
    int32_t *key;          /* max_depth + 1 actions: the leaf's state, then the final one */
    double relative;
    pp_shard_cost cost;
} trajectory;

typedef struct {
    const pp_shard_flat *flat;
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    pp_shard_search_options o;
    shard_action_space space;
    pp_shard_cost initial;
    pp_arena *arena;       /* keys and child arrays */
    node *nodes;
    int32_t n_nodes, cap_nodes;
    int32_t *table;        /* open addressing over node hashes */
    uint32_t table_size;
    double top_reward;     /* the highest reward seen, for UCT's scale */
    double root_reward;    /* of the unsharded state */
    bool best_fits;
    int32_t best_depth;
    int32_t *best_key;     /* max_depth + 1 actions */
    int32_t *scratch_key;  /* a child's key as expand() forms it */
    pp_shard_cost best_cost;
    double best_relative;
    int64_t evaluations;
    double started;        /* pp_now() when the search began, for progress */
} search;

typedef struct {
    search *S;
    trajectory *traj;
    int32_t count, first, stride;
    const pp_deadline *deadline; /* checked before each rollout; NULL: none */
    shard_cost_model model;
    uint8_t *axes;
} worker;

static uint64_t key_hash(const int32_t *key, int32_t n)
{
    uint64_t h = 1469598103934665603u;
    for (int32_t k = 0; k < n; k++)
        h = (h ^ (uint64_t)(uint32_t)key[k]) * 1099511628211u;
    return h ^ (uint64_t)n;
}

static int32_t find_node(const search *S, const int32_t *key, int32_t n, uint64_t h)
{
    for (uint32_t i = (uint32_t)h & (S->table_size - 1);; i = (i + 1) & (S->table_size - 1)) {
        int32_t id = S->table[i];
        if (id < 0)
            return -1;
        const node *N = &S->nodes[id];
        if (N->hash == h && N->depth == n && memcmp(N->key, key, sizeof *key * (size_t)n) == 0)
            return id;
    }
}

static bool grow_table(search *S)
{
    uint32_t size = S->table_size ? 2 * S->table_size : 1024;
    int32_t *t = malloc(sizeof *t * size);
    if (!t)
        return false;
    for (uint32_t i = 0; i < size; i++)
        t[i] = -1;
    for (int32_t id = 0; id < S->n_nodes; id++) {
        uint32_t i = (uint32_t)S->nodes[id].hash & (size - 1);
        while (t[i] >= 0)
            i = (i + 1) & (size - 1);
        t[i] = id;
    }
    free(S->table);
    S->table = t;
    S->table_size = size;
    return true;
}

/* The node of state `key` (sorted), created when new; -1 out of memory. */
static int32_t node_of(search *S, const int32_t *key, int32_t n)
{
    uint64_t h = key_hash(key, n);
    int32_t id = S->table_size ? find_node(S, key, n, h) : -1;
    if (id >= 0)
        return id;
    if ((uint32_t)(S->n_nodes + 1) * 2 > S->table_size && !grow_table(S))
        return -1;
    if (!pp_grow((void **)&S->nodes, &S->cap_nodes, S->n_nodes + 1, sizeof *S->nodes))
        return -1;
    int32_t *k = pp_arena_alloc(S->arena, sizeof *k * (size_t)(n + 1));
    if (!k)
        return -1;
    memcpy(k, key, sizeof *k * (size_t)n);
    id = S->n_nodes++;
    S->nodes[id] = (node){n, k, h, 0, 0, 0, 0, 0, NULL, NULL, -1};
    uint32_t i = (uint32_t)h & (S->table_size - 1);
    while (S->table[i] >= 0)
        i = (i + 1) & (S->table_size - 1);
    S->table[i] = id;
    return id;
}

static bool in_key(const int32_t *key, int32_t n, int32_t a)
{
    for (int32_t k = 0; k < n; k++)
        if (key[k] == a)
            return true;
    return false;
}

static void key_insert(int32_t *key, int32_t n, int32_t a)
{
    int32_t k = n;
    while (k > 0 && key[k - 1] > a) {
        key[k] = key[k - 1];
        k--;
    }
    key[k] = a;
}

/* The children of a node met for the first time: the actions not in its
 * state, shuffled by a generator of (seed, its key). */
static bool open_node(search *S, node *N)
{
    int32_t n = S->space.n - N->depth;
    N->child_action = pp_arena_alloc(S->arena, sizeof(int32_t) * (size_t)(n + 1));
    N->child_node = pp_arena_alloc(S->arena, sizeof(int32_t) * (size_t)(n + 1));
    if (!N->child_action || !N->child_node)
        return false;
    int32_t c = 0;
    for (int32_t a = 0; a < S->space.n; a++)
        if (!in_key(N->key, N->depth, a))
            N->child_action[c++] = a;
    pp_rng rng;
    pp_rng_seed(&rng, S->o.seed ^ N->hash, 1);
    for (int32_t i = c - 1; i > 0; i--) {
        int32_t j = (int32_t)pp_rng_below(&rng, (uint32_t)i + 1), t = N->child_action[i];
        N->child_action[i] = N->child_action[j];
        N->child_action[j] = t;
    }
    for (int32_t i = 0; i < c; i++)
        N->child_node[i] = UNTRIED;
    N->n_children = c;
    N->next_untried = -1;
    return true;
}

/* UCT with the mean reward rescaled so that the unsharded state scores 0
 * and the best state yet 1: rewards 1 / C(s) of useful states differ by a
 * few percent, which would drown in the exploration term unscaled. */
static double uct(const search *S, int32_t parent_visits, int32_t visits, double reward)
{
    if (visits == 0)
        return INFINITY;
    double span = S->top_reward - S->root_reward;
    double mean = reward / visits;
    double q = span > 0 ? (mean - S->root_reward) / span : 0;
    return q + EXPLORATION * sqrt(log((double)parent_visits + 1) / visits);
}

/* The best child by UCT: a node index, or STOP (also when no child is valid). */
static int32_t select_child(const search *S, const node *N)
{
    int32_t best = STOP;
    double best_score = uct(S, N->visits, N->stop_visits, N->stop_reward);
    for (int32_t i = 0; i < N->next_untried; i++) {
        int32_t id = N->child_node[i];
        if (id < 0)
            continue;
        double score = uct(S, N->visits, S->nodes[id].visits, S->nodes[id].reward);
        if (score > best_score) {
            best_score = score;
            best = id;
        }
    }
    return best;
}

static void layout_of(const search *S, const int32_t *key, int32_t n, uint8_t *axes)
{
    memset(axes, 0, (size_t)S->nda->n_names);
    for (int32_t k = 0; k < n; k++)
        shard_action_apply(S->nda, S->mesh, &S->space.actions[key[k]], axes);
}

/* Action a can join the state whose layout is axes (left unchanged). */
static bool action_fits(const search *S, int32_t a, uint8_t *axes)
{
    const shard_action *act = &S->space.actions[a];
    if (!shard_action_apply(S->nda, S->mesh, act, axes))
        return false;
    for (int32_t k = 0; k < act->n_names; k++) /* each bit was clear before */
        axes[act->names[k]] &= (uint8_t)~(1u << act->axis);
    return true;
}

/* Tries the next untried child of N (whose state's layout is in axes):
 * the node index, STOP when the stop child came up, ALL_TRIED when every
 * child has been tried, or OUT_OF_MEMORY. */
static int32_t expand(search *S, int32_t id, uint8_t *axes)
{
    if (S->nodes[id].next_untried < 0) {
        S->nodes[id].next_untried = 0;
        return STOP;
    }
    while (S->nodes[id].next_untried < S->nodes[id].n_children) {
        node *N = &S->nodes[id];
        int32_t i = N->next_untried++;
        if (!action_fits(S, N->child_action[i], axes)) {
            N->child_node[i] = INVALID;
            continue;
        }
        int32_t *key = S->scratch_key;
        memcpy(key, N->key, sizeof *key * (size_t)N->depth);
        key_insert(key, N->depth, N->child_action[i]);
        int32_t child = node_of(S, key, N->depth + 1); /* may move S->nodes */
        if (child < 0)
            return OUT_OF_MEMORY;
        S->nodes[id].child_node[i] = child;
        return child;
    }
    return ALL_TRIED;
}

/* Walks the tree from the root to a leaf for trajectory T, adding a
 * virtual visit to each node passed. false when out of memory. */
static bool descend(search *S, trajectory *T, uint8_t *axes)
{
    int32_t id = 0;
    memset(axes, 0, (size_t)S->nda->n_names);
    T->n_path = 0;
    T->stopped = false;
    for (;;) {
        T->path[T->n_path++] = id;
        S->nodes[id].visits++;
        if (S->nodes[id].n_children == 0 && S->nodes[id].next_untried < 0 && !open_node(S, &S->nodes[id]))
            return false;
        int32_t next = S->nodes[id].depth >= S->o.max_depth ? STOP : expand(S, id, axes);
        if (next == OUT_OF_MEMORY)
            return false;
        bool fresh = next >= 0;
        if (next == ALL_TRIED)
            next = select_child(S, &S->nodes[id]);
        if (next == STOP) {
            T->stopped = true;
            break;
        }
        layout_of(S, S->nodes[next].key, S->nodes[next].depth, axes);
        id = next;
        if (fresh) {
            T->path[T->n_path++] = id;
            S->nodes[id].visits++;
            break;
        }
    }
    const node *leaf = &S->nodes[id];
    T->depth = leaf->depth;
    memcpy(T->key, leaf->key, sizeof *T->key * (size_t)leaf->depth);
    return true;
}

/* From the leaf's state, random valid actions until a stop or max_depth;
 * then the cost of the final state. */
static void rollout(worker *W, trajectory *T)
{
    const search *S = W->S;
    pp_rng rng;
    pp_rng_seed(&rng, T->seed, 2);
    layout_of(S, T->key, T->depth, W->axes);
    while (!T->stopped && T->depth < S->o.max_depth && pp_rng_unit(&rng) >= ROLLOUT_STOP) {
        bool applied = false;
        for (int32_t tries = 0; tries < ROLLOUT_TRIES && !applied; tries++) {
            int32_t a = (int32_t)pp_rng_below(&rng, (uint32_t)S->space.n);
            if (!in_key(T->key, T->depth, a) && shard_action_apply(S->nda, S->mesh, &S->space.actions[a], W->axes)) {
                key_insert(T->key, T->depth++, a);
                applied = true;
            }
        }
        if (!applied)
            break;
    }
    W->model.axes = W->axes;
    shard_cost_total(&W->model, &T->cost);
    T->relative = pp_shard_cost_relative(&T->cost, &S->initial, S->o.memory, S->o.penalty);
}

static void *worker_main(void *arg)
{
    worker *W = arg;
    /* a round of a large model takes long: the deadline is checked per
     * rollout, so that --timeout holds within one rollout, not one round */
    for (int32_t k = W->first; k < W->count; k += W->stride) {
        W->traj[k].skipped = W->deadline && pp_deadline_passed(W->deadline);
        if (!W->traj[k].skipped)
            rollout(W, &W->traj[k]);
    }
    return NULL;
}

/* Runs the rollouts of one round on the workers (worker 0 is this thread). */
static void run_rollouts(worker *workers, int32_t n_workers, trajectory *traj, int32_t count,
                         const pp_deadline *deadline)
{
    for (int32_t w = 0; w < n_workers; w++) {
        workers[w].traj = traj;
        workers[w].count = count;
        workers[w].first = w;
        workers[w].stride = n_workers;
        workers[w].deadline = deadline;
    }
    pp_threads_run(n_workers, worker_main, workers, sizeof *workers);
}

/* The plan returned is the best state that fits the memory when one was
 * seen, whatever C(s) says: the penalty steers the search, but a user's
 * --memory is a limit. Then lower C(s), then fewer actions. */
static bool ranks_above(const search *S, const trajectory *T, bool b_fits, double b_relative, int32_t b_depth)
{
    bool fits = T->cost.peak_memory <= S->o.memory;
    if (fits != b_fits)
        return fits;
    if (T->relative < b_relative * (1 - 1e-12))
        return true;
    return T->relative <= b_relative * (1 + 1e-12) && T->depth < b_depth;
}

static bool beats_best(const search *S, const trajectory *T)
{
    return ranks_above(S, T, S->best_fits, S->best_relative, S->best_depth);
}

static void take_best(search *S, const trajectory *T)
{
    S->best_fits = T->cost.peak_memory <= S->o.memory;
    S->best_depth = T->depth;
    memcpy(S->best_key, T->key, sizeof *T->key * (size_t)T->depth);
    S->best_cost = T->cost;
    S->best_relative = T->relative;
}

/* Backs a trajectory's reward up its path; true when it is the best yet. */
static bool back_up(search *S, const trajectory *T)
{
    double r = 1.0 / T->relative;
    for (int32_t k = 0; k < T->n_path; k++)
        S->nodes[T->path[k]].reward += r;
    if (T->stopped) {
        node *leaf = &S->nodes[T->path[T->n_path - 1]];
        leaf->stop_visits++;
        leaf->stop_reward += r;
    }
    S->evaluations++;
    if (r > S->top_reward)
        S->top_reward = r;
    bool better = beats_best(S, T);
    if (better)
        take_best(S, T);
    return better;
}

static void report_progress(const search *S, const char *stage, int64_t rounds)
{
    if (!S->o.on_progress)
        return;
    pp_shard_progress p = {stage, pp_now() - S->started, rounds, S->best_cost.runtime};
    S->o.on_progress(S->o.progress_ctx, &p);
}

/* count trajectories with their path and key arrays, from the search's
 * arena (a round's and the polish's are made once). */
static trajectory *new_trajectories(search *S, int32_t count)
{
    size_t per = (size_t)S->o.max_depth * 2 + 3;
    trajectory *traj = pp_arena_calloc(S->arena, (size_t)count, sizeof *traj);
    int32_t *ints = pp_arena_alloc(S->arena, sizeof *ints * per * (size_t)count);
    if (!traj || !ints)
        return NULL;
    for (int32_t k = 0; k < count; k++) {
        traj[k].path = ints + per * (size_t)k;
        traj[k].key = traj[k].path + S->o.max_depth + 2;
    }
    return traj;
}

static pp_status run_rounds(search *S, worker *workers, int32_t n_workers, const pp_deadline *deadline,
                            pp_shard_search_result *out, pp_error *err)
{
    int32_t count = S->o.trajectories;
    trajectory *traj = new_trajectories(S, count);
    if (!traj)
        return pp_error_set(err, PP_ENOMEM, "search: out of memory");
    int32_t idle = 0;
    pp_status st = PP_OK;
    while (idle < S->o.patience) {
        if (pp_deadline_passed(deadline)) {
            out->timed_out = true;
            break;
        }
        for (int32_t k = 0; k < count && st == PP_OK; k++) {
            traj[k].seed = S->o.seed * 0x9E3779B97F4A7C15u + (uint64_t)out->rounds * (uint64_t)count + (uint64_t)k;
            if (!descend(S, &traj[k], workers[0].axes))
                st = pp_error_set(err, PP_ENOMEM, "search: out of memory");
        }
        if (st != PP_OK)
            break;
        run_rollouts(workers, n_workers, traj, count, S->o.time_limit > 0 ? deadline : NULL);
        bool improved = false;
        for (int32_t k = 0; k < count; k++)
            improved |= !traj[k].skipped && back_up(S, &traj[k]);
        out->rounds++;
        report_progress(S, "mcts", out->rounds);
        idle = improved ? 0 : idle + 1;
    }
    return st;
}

/* The neighbours of the best state: each action removed, each valid
 * action added, as stopped trajectories (evaluated without a rollout). */
static int32_t neighbours(const search *S, trajectory *traj, uint8_t *axes)
{
    int32_t count = 0;
    for (int32_t k = 0; k < S->best_depth; k++) {
        trajectory *T = &traj[count++];
        T->stopped = true;
        T->seed = 0;
        T->depth = 0;
        for (int32_t j = 0; j < S->best_depth; j++)
            if (j != k)
                T->key[T->depth++] = S->best_key[j];
    }
    if (S->best_depth >= S->o.max_depth)
        return count;
    layout_of(S, S->best_key, S->best_depth, axes);
    for (int32_t a = 0; a < S->space.n; a++)
        if (!in_key(S->best_key, S->best_depth, a) && action_fits(S, a, axes)) {
            trajectory *T = &traj[count++];
            T->stopped = true;
            T->seed = 0;
            memcpy(T->key, S->best_key, sizeof *T->key * (size_t)S->best_depth);
            key_insert(T->key, S->best_depth, a);
            T->depth = S->best_depth + 1;
        }
    return count;
}

/* After the tree search, best-improvement hill climbing from its best
 * state over single additions and removals: the tree's statistics rank
 * actions, but a last action that gains a little is often left unvisited
 * when the rounds rule stops the search. */
static pp_status polish(search *S, worker *workers, int32_t n_workers, const pp_deadline *deadline,
                        pp_shard_search_result *out, pp_error *err)
{
    trajectory *traj = new_trajectories(S, S->space.n + S->o.max_depth);
    if (!traj)
        return pp_error_set(err, PP_ENOMEM, "search: out of memory");
    for (;;) {
        if (pp_deadline_passed(deadline)) {
            out->timed_out = true;
            break;
        }
        int32_t count = neighbours(S, traj, workers[0].axes);
        run_rollouts(workers, n_workers, traj, count, S->o.time_limit > 0 ? deadline : NULL);
        S->evaluations += count;
        int32_t best = -1;
        for (int32_t k = 0; k < count; k++)
            if (!traj[k].skipped && beats_best(S, &traj[k]) &&
                (best < 0 || ranks_above(S, &traj[k], traj[best].cost.peak_memory <= S->o.memory,
                                         traj[best].relative, traj[best].depth)))
                best = k;
        if (best < 0)
            break;
        take_best(S, &traj[best]);
        out->polish_steps++;
        report_progress(S, "polish", out->rounds + out->polish_steps);
    }
    return PP_OK;
}

void pp_shard_search_options_default(pp_shard_search_options *o)
{
    memset(o, 0, sizeof *o);
    o->penalty = PP_SHARD_MEMORY_PENALTY;
    o->time_limit = 60;
    o->seed = 1;
    o->max_depth = 30;
    o->min_dims = 10;
    o->trajectories = 0;
    o->patience = 2;
}

static void normalise(pp_shard_search_options *o, const pp_shard_mesh *mesh)
{
    if (o->memory <= 0)
        o->memory = mesh->device->memory_bytes;
    if (o->penalty <= 0)
        o->penalty = PP_SHARD_MEMORY_PENALTY;
    if (o->max_depth <= 0)
        o->max_depth = 30;
    if (o->patience <= 0)
        o->patience = 2;
    if (o->min_dims < 0)
        o->min_dims = 0;
}

static pp_status fill_result(search *S, pp_shard_search_result *out, pp_error *err)
{
    out->arena = pp_arena_new(0);
    out->axes = out->arena ? pp_arena_calloc(out->arena, (size_t)S->nda->n_names + 1, 1) : NULL;
    if (!out->axes)
        return pp_error_set(err, PP_ENOMEM, "search: out of memory");
    layout_of(S, S->best_key, S->best_depth, out->axes);
    out->steps = pp_arena_calloc(out->arena, (size_t)S->best_depth + 1, sizeof *out->steps);
    if (!out->steps)
        return pp_error_set(err, PP_ENOMEM, "search: out of memory");
    out->n_steps = S->best_depth;
    for (int32_t k = 0; k < S->best_depth; k++) {
        const shard_action *a = &S->space.actions[S->best_key[k]];
        uint8_t *bits = pp_arena_alloc(out->arena, (size_t)S->nda->n_sets + 1);
        if (!bits)
            return pp_error_set(err, PP_ENOMEM, "search: out of memory");
        memcpy(bits, a->bits, (size_t)S->nda->n_sets + 1);
        out->steps[k] = (pp_shard_search_step){a->color, a->n_colors, a->axis, a->n_names, bits};
    }
    out->cost = S->best_cost;
    out->initial = S->initial;
    out->relative = S->best_relative;
    out->initial_relative = pp_shard_cost_relative(&S->initial, &S->initial, S->o.memory, S->o.penalty);
    out->memory = S->o.memory;
    out->n_actions = S->space.n;
    out->evaluations = S->evaluations;
    out->tree_nodes = S->n_nodes;
    return PP_OK;
}

/* Names the mesh and the sizes it would have to divide. */
static pp_status nothing_to_shard(const search *S, pp_error *err)
{
    char mesh[160] = "", sizes[160] = "";
    size_t m = 0, z = 0;
    for (int32_t a = 0; a < S->mesh->n_axes; a++)
        m += (size_t)snprintf(mesh + m, sizeof mesh - m, "%s%s=%d", a ? "," : "", S->mesh->names[a],
                              (int)S->mesh->sizes[a]);
    int64_t below = INT64_MAX;
    for (int shown = 0; shown < 5; shown++) { /* the largest distinct sizes, descending */
        int64_t next = 0;
        for (int32_t c = 0; c < S->nda->n_colors; c++)
            if (S->nda->colors[c].n_names >= S->o.min_dims && S->nda->colors[c].size < below &&
                S->nda->colors[c].size > next)
                next = S->nda->colors[c].size;
        if (next <= 1)
            break;
        z += (size_t)snprintf(sizes + z, sizeof sizes - z, "%s%lld", shown ? ", " : "", (long long)next);
        below = next;
    }
    return pp_error_set(err, PP_EINPUT,
                        "mesh %s shards nothing: no axis size divides a dimension shared by %d or more tensor "
                        "dimensions (the largest such sizes: %s)",
                        mesh, (int)S->o.min_dims, z ? sizes : "none");
}

/* A round long enough to try every root action several times: with fewer,
 * the early-termination rule stops the search before it has looked past
 * the first level. */
static int32_t auto_trajectories(int32_t n_actions)
{
    int32_t n = 8 * n_actions;
    return n < 256 ? 256 : n > 2048 ? 2048 : n;
}

static pp_status start(search *S, worker *workers, int32_t n_workers, pp_error *err)
{
    pp_status st = shard_actions_build(S->nda, S->mesh, S->o.min_dims, &S->space, err);
    if (st != PP_OK)
        return st;
    if (S->o.trajectories <= 0)
        S->o.trajectories = auto_trajectories(S->space.n);
    if (S->space.n == 0)
        return nothing_to_shard(S, err);
    for (int32_t w = 0; w < n_workers; w++) {
        workers[w].S = S;
        workers[w].axes = calloc((size_t)S->nda->n_names + 1, 1);
        if (!workers[w].axes || !shard_cost_model_init(&workers[w].model, S->flat, S->nda, S->mesh))
            return pp_error_set(err, PP_ENOMEM, "search: out of memory");
    }
    S->arena = pp_arena_new(0);
    int32_t empty[1] = {0};
    S->best_key = S->arena ? pp_arena_alloc(S->arena, sizeof *S->best_key * ((size_t)S->o.max_depth + 1)) : NULL;
    S->scratch_key = S->arena ? pp_arena_alloc(S->arena, sizeof *S->best_key * ((size_t)S->o.max_depth + 1)) : NULL;
    if (!S->best_key || !S->scratch_key || node_of(S, empty, 0) != 0)
        return pp_error_set(err, PP_ENOMEM, "search: out of memory");
    workers[0].model.axes = workers[0].axes;
    shard_cost_total(&workers[0].model, &S->initial);
    S->best_cost = S->initial;
    S->best_relative = pp_shard_cost_relative(&S->initial, &S->initial, S->o.memory, S->o.penalty);
    S->best_fits = S->initial.peak_memory <= S->o.memory;
    S->top_reward = 1.0 / S->best_relative;
    S->root_reward = S->top_reward;
    return PP_OK;
}

pp_status pp_shard_search(const pp_shard_flat *flat, const pp_shard_nda *nda, const pp_shard_mesh *mesh,
                          const pp_shard_search_options *o, pp_shard_search_result *out, pp_error *err)
{
    double t0 = pp_now();
    memset(out, 0, sizeof *out);
    search S;
    memset(&S, 0, sizeof S);
    S.flat = flat;
    S.nda = nda;
    S.mesh = mesh;
    S.o = *o;
    S.started = t0;
    normalise(&S.o, mesh);
    int32_t n_workers = S.o.threads > 0 ? S.o.threads : pp_cpu_count();
    if (n_workers > 64)
        n_workers = 64;
    worker *workers = calloc((size_t)n_workers, sizeof *workers);
    pp_status st = workers ? start(&S, workers, n_workers, err) : pp_error_set(err, PP_ENOMEM, "search: out of memory");
    pp_deadline deadline = pp_deadline_in(S.o.time_limit > 0 ? S.o.time_limit : 0);
    deadline.stop = S.o.stop;
    if (st == PP_OK)
        st = run_rounds(&S, workers, n_workers, &deadline, out, err);
    if (st == PP_OK && !out->timed_out)
        st = polish(&S, workers, n_workers, &deadline, out, err);
    if (st == PP_OK)
        st = fill_result(&S, out, err);
    for (int32_t w = 0; workers && w < n_workers; w++) {
        free(workers[w].axes);
        shard_cost_model_free(&workers[w].model);
    }
    free(workers);
    free(S.nodes);
    free(S.table);
    pp_arena_free(S.arena);
    shard_actions_free(&S.space);
    out->seconds = pp_now() - t0;
    if (st != PP_OK)
        pp_shard_search_result_free(out);
    return st;
}

void pp_shard_search_result_free(pp_shard_search_result *r)
{
    pp_arena_free(r->arena);
    r->arena = NULL;
    r->axes = NULL;
}
