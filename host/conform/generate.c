/* trnsim conform: programs generated from the opcodes' recipes
 * (docs/internals/conform.md): recipes read from the registry, instances
 * drawn (variables, dtypes, attributes), the native program built, and the
 * adversarial input data. Everything is drawn from the case's own seed, so
 * a case is the same whenever it is built again (shrinking rebuilds it). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform/conform.h"

/* ---- the seeded generator (splitmix64: small, fast, and ours) ---- */

uint64_t cf_mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t cf_next(uint64_t *st) {
    *st += 0x9e3779b97f4a7c15ull;
    return cf_mix(*st);
}

/* Uniform in [lo, hi]; unsigned arithmetic, as hi - lo can exceed INT64_MAX. */
int64_t cf_range(uint64_t *st, int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0: all of int64 */
    uint64_t x = span ? cf_next(st) % span : cf_next(st);
    return (int64_t)((uint64_t)lo + x);
}

static double cf_unit(uint64_t *st) { return (double)(cf_next(st) >> 11) * 0x1.0p-53; }

/* ---- expressions: integers and variables, + - * /, no parentheses ---- */

static int64_t var_value(const cf_instance *in, const char *name, size_t len, bool *ok) {
    if (len == 5 && !strncmp(name, "CORES", 5)) return in->cores;
    for (int i = 0; i < in->n_vars; ++i)
        if (strlen(in->var_name[i]) == len && !strncmp(in->var_name[i], name, len))
            return in->var_val[i];
    *ok = false;
    return 0;
}

static int64_t term(const cf_instance *in, const char **p, bool *ok) {
    const char *s = *p;
    while (*s == ' ') ++s;
    int64_t v = 0;
    if (*s >= '0' && *s <= '9') {
        errno = 0;
        v = strtoll(s, (char **)&s, 10);
        if (errno) *ok = false; /* beyond int64 */
    } else {
        const char *b = s;
        while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_' ||
               (s > b && *s >= '0' && *s <= '9'))
            ++s;
        if (s == b) *ok = false;
        v = var_value(in, b, (size_t)(s - b), ok);
    }
    while (*s == ' ') ++s;
    *p = s;
    return v;
}

static int64_t product(const cf_instance *in, const char **p, bool *ok) {
    int64_t v = term(in, p, ok);
    while (**p == '*' || **p == '/') {
        char op = *(*p)++;
        int64_t w = term(in, p, ok);
        /* a recipe's values can be any int64: overflow (and INT64_MIN / -1,
         * which traps) makes the expression invalid instead */
        if (op == '*') {
            if (__builtin_mul_overflow(v, w, &v)) *ok = false;
        } else if (w == 0 || (v == INT64_MIN && w == -1)) {
            *ok = false;
        } else {
            v /= w;
        }
    }
    return v;
}

/* EXPR's value; false when it does not parse or names an unknown variable. */
bool cf_eval(const cf_instance *in, const char *expr, int64_t *out) {
    bool ok = true;
    const char *p = expr;
    int64_t v = product(in, &p, &ok);
    while (*p == '+' || *p == '-') {
        char op = *p++;
        int64_t w = product(in, &p, &ok);
        if (op == '+' ? __builtin_add_overflow(v, w, &v) : __builtin_sub_overflow(v, w, &v))
            ok = false;
    }
    *out = v;
    return ok && *p == 0;
}

/* An integer, a variable or an expression, as an integer JSON value. */
static json_t *eval_json(const cf_instance *in, const json_t *v, trn_error *e) {
    if (!json_is_string(v)) return json_deep_copy(v);
    int64_t x;
    if (!cf_eval(in, json_string_value(v), &x)) {
        trn_errorf(e,
                   "recipe '%s': cannot evaluate \"%s\" (expected integers, variables, + - * /, "
                   "no division by 0, every step within int64); fix the module's recipe",
                   in->r->name, json_string_value(v));
        return NULL;
    }
    return json_integer(x);
}

/* ---- recipes ---- */

static int var_bounds(const json_t *v, int64_t b[3]) {
    size_t n = json_array_size(v);
    if (n < 2 || n > 3) return -1;
    for (size_t i = 0; i < n; ++i) {
        if (!json_is_integer(json_array_get(v, i))) return -1;
        b[i] = json_integer_value(json_array_get(v, i));
    }
    if (n == 2) b[2] = 1;
    int64_t span; /* drawing takes max - min: it must be an int64 */
    return b[2] > 0 && b[0] <= b[1] && !__builtin_sub_overflow(b[1], b[0], &span) ? 0 : -1;
}

static int check_recipe(const cf_opcode *op, json_t *r, trn_error *e) {
    const char *name = json_string_value(json_object_get(r, "name"));
    if (!json_is_object(r) || !name)
        return trn_errorf(e, "opcode %s: a recipe without a \"name\"", op->name);
    json_t *vars = json_object_get(r, "vars"), *v;
    const char *k;
    json_object_foreach(vars, k, v) {
        int64_t b[3];
        if (var_bounds(v, b))
            return trn_errorf(e,
                              "opcode %s, recipe '%s': var %s: expected [min, max] or [min, "
                              "max, step] integers, min <= max, step > 0, max - min within int64",
                              op->name, name, k);
    }
    if (!json_is_array(json_object_get(r, "tensors")) ||
        !json_is_array(json_object_get(r, "instructions")))
        return trn_errorf(e, "opcode %s, recipe '%s': needs \"tensors\" and \"instructions\" lists",
                          op->name, name);
    return 0;
}

/* A recipe from the schema and operand roles alone: one [P, N] tensor per
 * operand, required attributes drawn. */
static json_t *schema_recipe(const trn_opcode_desc *d) {
    json_t *r =
        json_pack("{s:s, s:{s:[i,i], s:[i,i,i]}, s:{s:[s,s,s]}}", "name", "schema", "vars", "P", 1,
                  128, "N", 8, 512, 8, "dtypes", "T", "float32", "bfloat16", "float16");
    json_t *tensors = json_array(), *ins = json_array(), *outs = json_array();
    json_t *inst = json_pack("{s:s}", "opcode", d->name);
    for (uint32_t i = 0; i < d->n_operands; ++i) {
        char name[32];
        bool in = d->operands[i].dir == TRN_IN;
        snprintf(name, sizeof name, "%s%u", in ? "in" : "out", i);
        json_array_append_new(tensors,
                              json_pack("{s:s, s:s, s:s, s:[s,s], s:b}", "name", name, "memory",
                                        "sbuf", "dtype", "T", "shape", "P", "N", "input", in));
        json_array_append_new(in ? ins : outs, json_string(name));
    }
    json_object_set_new(inst, "inputs", ins);
    json_object_set_new(inst, "outputs", outs);
    for (uint32_t i = 0; i < d->n_attrs; ++i)
        if (d->attrs[i].flags & TRN_ATTRF_REQUIRED)
            json_object_set_new(inst, d->attrs[i].name, json_string("@"));
    json_object_set_new(r, "tensors", tensors);
    json_object_set_new(r, "instructions", json_pack("[o]", inst));
    return r;
}

static int add_recipes(cf_opcode *op, trn_error *e) {
    if (op->desc->conform) {
        json_error_t je;
        op->json = json_loads(op->desc->conform, 0, &je);
        if (!json_is_array(op->json))
            return trn_errorf(e,
                              "opcode %s: its conform recipes are not a JSON array (line %d: %s); "
                              "fix the module's trn_opcode_desc.conform text",
                              op->name, je.line, op->json ? "not an array" : je.text);
    } else {
        op->json = json_pack("[o]", schema_recipe(op->desc));
        op->schema_only = true;
    }
    op->n_recipes = (int)json_array_size(op->json);
    op->recipes = calloc((size_t)op->n_recipes + 1, sizeof *op->recipes);
    if (!op->recipes) return trn_errorf(e, "out of memory");
    for (int i = 0; i < op->n_recipes; ++i) {
        cf_recipe *r = &op->recipes[i];
        r->obj = json_array_get(op->json, (size_t)i);
        if (check_recipe(op, r->obj, e)) return -1;
        r->op = op;
        r->name = json_string_value(json_object_get(r->obj, "name"));
        int64_t c[3] = {1, 1, 1};
        json_t *cores = json_object_get(r->obj, "cores");
        if (cores && (var_bounds(cores, c) || c[0] < 1 || c[1] > INT32_MAX))
            return trn_errorf(e,
                              "opcode %s, recipe '%s': cores: expected [min, max] integers, 1 <= "
                              "min <= max",
                              op->name, r->name);
        r->cores_min = (uint32_t)c[0];
        r->cores_max = (uint32_t)c[1];
    }
    return op->n_recipes ? 0
                         : trn_errorf(e, "opcode %s: its conform recipe list is empty", op->name);
}

/* The opcodes --family / --opcode select (all of the loaded families when
 * neither is given), each with its recipes. */
int cf_select(cf_engine *g, const trn_registry *reg, trn_error *e) {
    for (uint32_t it = 0; it <= TRN_IT_MAX; ++it) {
        const trn_slot *sl = &reg->table[it];
        if (!sl->op || !sl->owner) continue;
        const char *fam = sl->owner->desc->family;
        bool want = g->n_families == 0 && g->n_opcodes == 0;
        for (int i = 0; i < g->n_families; ++i) want |= !strcmp(g->families[i], fam);
        for (int i = 0; i < g->n_opcodes; ++i) want |= !strcmp(g->opcodes[i], sl->op->name);
        if (!want) continue;
        if (g->n_ops == CF_MAX_OPCODES) return trn_errorf(e, "too many opcodes selected");
        cf_opcode *op = &g->ops[g->n_ops++];
        *op = (cf_opcode){.name = sl->op->name, .family = fam, .it = it, .desc = sl->op};
        if (add_recipes(op, e)) return -1;
    }
    return 0;
}

void cf_unselect(cf_engine *g) {
    for (int i = 0; i < g->n_ops; ++i) {
        json_decref(g->ops[i].json);
        free(g->ops[i].recipes);
    }
    g->n_ops = 0;
}

/* ---- drawing an instance ---- */

static double adversarial_float(uint64_t *st) {
    static const double fixed[] = {0.0,     -0.0,   1.0,      -1.0,      0.5,
                                   -2.5,    3.4e38, -3.4e38,  1.0e-40,   -1.0e-40,
                                   65504.0, 1.5,    INFINITY, -INFINITY, NAN};
    if (cf_next(st) % 2) return fixed[cf_next(st) % (sizeof fixed / sizeof fixed[0])];
    return ldexp(cf_unit(st) * 2 - 1, (int)cf_range(st, -30, 30));
}

/* A schema bound as an int64: a double beyond int64 (an infinite bound for
 * "any integer") would not convert (undefined; x86 gives INT64_MIN). */
static int64_t bound_i64(double v) {
    return v >= 0x1p63 ? INT64_MAX : v <= -0x1p63 ? INT64_MIN : (int64_t)v;
}

/* A JSON value for an attribute drawn from its schema ("@"). */
static json_t *draw_attr(const trn_attr_desc *a, uint64_t *st) {
    bool ranged = a->min < a->max;
    if (a->types & TRN_ATTR_ENUM && a->n_enums)
        return json_string(a->enums[cf_next(st) % a->n_enums].name);
    if (a->types & TRN_ATTR_BOOL) return json_boolean(cf_next(st) % 2);
    if (a->types & TRN_ATTR_INT)
        return json_integer(ranged ? cf_range(st, bound_i64(a->min), bound_i64(a->max))
                                   : cf_range(st, -4, 64));
    if (a->types & TRN_ATTR_FLOAT) {
        double v = adversarial_float(st);
        if (ranged)
            v = isfinite(v) && v >= a->min && v <= a->max
                    ? v
                    : a->min + cf_unit(st) * (a->max - a->min);
        if (isnan(v)) return json_string("nan");
        if (isinf(v)) return json_string(v < 0 ? "-inf" : "inf");
        return json_real(v);
    }
    if (a->types & TRN_ATTR_LIST) {
        /* near the least length: a schema's bound is what a module accepts,
         * not a length to draw up to (2^32-1 would be billions of values) */
        int64_t lo = a->len_min, hi = a->len_max ? a->len_max : lo + 4;
        if (hi > lo + 64) hi = lo + 64;
        int64_t n = cf_range(st, lo, hi);
        json_t *l = json_array();
        for (int64_t i = 0; i < n; ++i)
            json_array_append_new(
                l, json_integer(ranged ? cf_range(st, bound_i64(a->min), bound_i64(a->max))
                                       : cf_range(st, 0, 8)));
        return l;
    }
    return json_null();
}

static const trn_attr_desc *find_attr(const trn_opcode_desc *d, const char *name) {
    for (uint32_t i = 0; d && i < d->n_attrs; ++i)
        if (!strcmp(d->attrs[i].name, name)) return &d->attrs[i];
    return NULL;
}

static const trn_opcode_desc *opcode_named(const trn_registry *reg, const char *name) {
    for (uint32_t it = 0; it <= TRN_IT_MAX; ++it)
        if (reg->table[it].op && !strcmp(reg->table[it].op->name, name)) return reg->table[it].op;
    return NULL;
}

/* The attribute draws of every instruction ("@" and {"@": [...]}), made
 * once per instance so that shrinking keeps them. */
static int draw_attrs(cf_instance *in, const trn_registry *reg, uint64_t *st, trn_error *e) {
    in->attrs = json_array();
    json_t *insts = json_object_get(in->r->obj, "instructions"), *ij;
    size_t i;
    json_array_foreach(insts, i, ij) {
        json_t *drawn = json_object(), *v;
        const char *k;
        const char *opname = json_string_value(json_object_get(ij, "opcode"));
        const trn_opcode_desc *d = opname ? opcode_named(reg, opname) : NULL;
        json_object_foreach(ij, k, v) {
            json_t *pick = json_is_object(v) ? json_object_get(v, "@") : NULL;
            if (json_is_array(pick) && json_array_size(pick))
                json_object_set(drawn, k,
                                json_array_get(pick, cf_next(st) % json_array_size(pick)));
            else if (json_is_string(v) && !strcmp(json_string_value(v), "@")) {
                const trn_attr_desc *a = find_attr(d, k);
                if (!a) {
                    json_decref(drawn);
                    return trn_errorf(e,
                                      "opcode %s, recipe '%s': attribute %s is \"@\" but %s's "
                                      "schema has no attribute %s",
                                      in->r->op->name, in->r->name, k, opname ? opname : "?", k);
                }
                json_object_set_new(drawn, k, draw_attr(a, st));
            }
        }
        json_array_append_new(in->attrs, drawn);
    }
    return 0;
}

int cf_draw_instance(cf_instance *in, cf_recipe *r, const trn_registry *reg, uint64_t *st,
                     int64_t turn, trn_error *e) {
    *in = (cf_instance){.r = r};
    json_t *vars = json_object_get(r->obj, "vars"), *v;
    const char *k;
    json_object_foreach(vars, k, v) {
        if (in->n_vars == CF_MAX_VARS)
            return trn_errorf(e, "recipe '%s': more than %d vars", r->name, CF_MAX_VARS);
        int64_t b[3];
        var_bounds(v, b);
        int i = in->n_vars++;
        in->var_name[i] = k;
        in->var_min[i] = b[0];
        in->var_step[i] = b[2];
        /* a quarter over the whole range, the rest in its lowest sixteenth:
         * big shapes stay covered while most cases are quick */
        int64_t steps = (b[1] - b[0]) / b[2];
        if (cf_next(st) % 4) steps /= 16;
        in->var_val[i] = b[0] + b[2] * cf_range(st, 0, steps);
    }
    json_t *dtypes = json_object_get(r->obj, "dtypes");
    json_object_foreach(dtypes, k, v) {
        if (in->n_dtypes == CF_MAX_VARS || !json_array_size(v))
            return trn_errorf(e, "recipe '%s': dtype var %s: expected a non-empty list", r->name,
                              k);
        int i = in->n_dtypes++;
        in->dtype_name[i] = k;
        /* the first dtype variable of a case's first instance takes its
         * values in turn, so every dtype a recipe lists is drawn */
        uint64_t pick = cf_next(st) % json_array_size(v);
        if (i == 0 && turn >= 0) pick = (uint64_t)turn % json_array_size(v);
        in->dtype_val[i] = json_string_value(json_array_get(v, pick));
        if (!in->dtype_val[i])
            return trn_errorf(e, "recipe '%s': dtype var %s lists a non-string", r->name, k);
    }
    return draw_attrs(in, reg, st, e);
}

void cf_instance_free(cf_instance *in) {
    json_decref(in->attrs);
    in->attrs = NULL;
}

/* The dtype a recipe's "dtype" names: a dtype variable's draw or itself. */
static const char *dtype_of(const cf_instance *in, const char *name) {
    for (int i = 0; i < in->n_dtypes; ++i)
        if (!strcmp(in->dtype_name[i], name)) return in->dtype_val[i];
    return name;
}

/* ---- building the native program ---- */

static void tensor_name(const cf_case *c, int k, const char *name, char *buf, size_t len) {
    if (c->n_inst == 1)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "i%d_%s", k, name);
}

static json_t *build_tensor(const cf_case *c, int k, json_t *t, trn_error *e) {
    const cf_instance *in = &c->inst[k];
    json_t *out = json_object(), *v;
    const char *key;
    char name[256];
    json_object_foreach(t, key, v) {
        if (!strcmp(key, "input")) continue;
        json_t *nv = NULL;
        if ((!strcmp(key, "name") || !strcmp(key, "view_of")) && json_is_string(v)) {
            tensor_name(c, k, json_string_value(v), name, sizeof name);
            nv = json_string(name);
        } else if (!strcmp(key, "dtype") && json_is_string(v)) {
            nv = json_string(dtype_of(in, json_string_value(v)));
        } else if (!strcmp(key, "shape") && json_is_array(v)) {
            nv = json_array();
            size_t i;
            json_t *d;
            json_array_foreach(v, i, d) {
                json_t *x = eval_json(in, d, e);
                if (!x) break;
                json_array_append_new(nv, x);
            }
            if (json_array_size(nv) != json_array_size(v)) {
                json_decref(nv);
                nv = NULL;
            }
        } else if (!strcmp(key, "partition") || !strcmp(key, "offset")) {
            nv = eval_json(in, v, e);
        } else {
            nv = json_deep_copy(v);
        }
        if (!nv) {
            json_decref(out);
            return NULL;
        }
        json_object_set_new(out, key, nv);
    }
    return out;
}

static json_t *build_operand(const cf_case *c, int k, json_t *o, trn_error *e) {
    const cf_instance *in = &c->inst[k];
    char name[256];
    if (json_is_string(o)) {
        tensor_name(c, k, json_string_value(o), name, sizeof name);
        return json_string(name);
    }
    json_t *out = json_object(), *v;
    const char *key;
    json_object_foreach(o, key, v) {
        json_t *nv;
        if (!strcmp(key, "tensor") && json_is_string(v)) {
            tensor_name(c, k, json_string_value(v), name, sizeof name);
            nv = json_string(name);
        } else if (!strcmp(key, "dtype") && json_is_string(v)) {
            nv = json_string(dtype_of(in, json_string_value(v)));
        } else if (!strcmp(key, "memory")) {
            nv = json_deep_copy(v);
        } else if (!strcmp(key, "ap") && json_is_array(v)) {
            nv = json_array();
            size_t i;
            json_t *pair;
            json_array_foreach(v, i, pair) {
                json_t *a = eval_json(in, json_array_get(pair, 0), e);
                json_t *b = a ? eval_json(in, json_array_get(pair, 1), e) : NULL;
                if (!b) {
                    json_decref(a);
                    json_decref(nv);
                    nv = NULL;
                    break;
                }
                json_array_append_new(nv, json_pack("[o,o]", a, b));
            }
        } else {
            nv = eval_json(in, v, e);
        }
        if (!nv) {
            json_decref(out);
            return NULL;
        }
        json_object_set_new(out, key, nv);
    }
    return out;
}

static json_t *build_operands(const cf_case *c, int k, json_t *list, trn_error *e) {
    json_t *out = json_array(), *o;
    size_t i;
    json_array_foreach(list, i, o) {
        json_t *x = build_operand(c, k, o, e);
        if (!x) {
            json_decref(out);
            return NULL;
        }
        json_array_append_new(out, x);
    }
    return out;
}

/* An attribute's literal value with every {"=": EXPR} in it (at the top,
 * inside lists or objects) replaced by the expression's integer, and the
 * operands of instruction objects in it (descriptor lists: "inputs",
 * "outputs", "tensor") renamed like the instruction's own. */
static json_t *resolve(const cf_case *c, int k, const json_t *v, trn_error *e) {
    if (json_is_object(v) && json_object_size(v) == 1 && json_object_get(v, "="))
        return eval_json(&c->inst[k], json_object_get(v, "="), e);
    if (json_is_object(v)) {
        json_t *out = json_object(), *x;
        const char *key;
        json_object_foreach((json_t *)v, key, x) {
            bool ops = !strcmp(key, "inputs") || !strcmp(key, "outputs");
            json_t *y = ops                                           ? build_operands(c, k, x, e)
                        : !strcmp(key, "tensor") && json_is_string(x) ? build_operand(c, k, x, e)
                                                                      : resolve(c, k, x, e);
            if (!y) {
                json_decref(out);
                return NULL;
            }
            json_object_set_new(out, key, y);
        }
        return out;
    }
    if (!json_is_array(v)) return json_deep_copy(v);
    json_t *out = json_array(), *x;
    size_t i;
    json_array_foreach(v, i, x) {
        json_t *y = resolve(c, k, x, e);
        if (!y) {
            json_decref(out);
            return NULL;
        }
        json_array_append_new(out, y);
    }
    return out;
}

static json_t *build_instruction(const cf_case *c, int k, size_t idx, json_t *ij, trn_error *e) {
    const cf_instance *in = &c->inst[k];
    json_t *drawn = json_array_get(in->attrs, idx);
    json_t *out = json_object(), *v;
    const char *key;
    json_object_foreach(ij, key, v) {
        json_t *nv;
        if (!strcmp(key, "inputs") || !strcmp(key, "outputs"))
            nv = build_operands(c, k, v, e);
        else if (json_object_get(drawn, key))
            nv = json_deep_copy(json_object_get(drawn, key));
        else
            nv = resolve(c, k, v, e);
        if (!nv) {
            json_decref(out);
            return NULL;
        }
        json_object_set_new(out, key, nv);
    }
    return out;
}

static bool operand_names(const json_t *list, const char *name) {
    json_t *o;
    size_t i;
    json_array_foreach(list, i, o) {
        const char *t = json_is_string(o) ? json_string_value(o)
                                          : json_string_value(json_object_get(o, "tensor"));
        if (t && !strcmp(t, name)) return true;
    }
    return false;
}

/* Whether v (an instruction, or an attribute holding instruction objects)
 * names the tensor in an operand position. */
static bool names_tensor(const json_t *v, const char *name) {
    if (json_is_array(v)) {
        json_t *x;
        size_t i;
        json_array_foreach(v, i, x) if (names_tensor(x, name)) return true;
        return false;
    }
    if (!json_is_object(v)) return false;
    const char *key;
    json_t *x;
    json_object_foreach((json_t *)v, key, x) {
        if ((!strcmp(key, "inputs") || !strcmp(key, "outputs")) && operand_names(x, name))
            return true;
        if (!strcmp(key, "tensor") && json_is_string(x) && !strcmp(json_string_value(x), name))
            return true;
        if (names_tensor(x, name)) return true;
    }
    return false;
}

static bool named_directly(const cf_instance *in, const char *name) {
    json_t *ij;
    size_t i;
    json_array_foreach(json_object_get(in->r->obj, "instructions"), i, ij) {
        if (i < 64 && (in->dropped >> i) & 1) continue;
        if (names_tensor(ij, name)) return true;
    }
    return false;
}

/* Whether the instance's instructions that shrinking kept use the tensor
 * (or a view of it): a tensor nothing uses is left out of the program. */
bool cf_tensor_used(const cf_instance *in, const char *name) {
    if (!in->dropped || named_directly(in, name)) return true;
    json_t *t;
    size_t i;
    json_array_foreach(json_object_get(in->r->obj, "tensors"), i, t) {
        const char *base = json_string_value(json_object_get(t, "view_of"));
        const char *tn = json_string_value(json_object_get(t, "name"));
        if (base && tn && !strcmp(base, name) && named_directly(in, tn)) return true;
    }
    return false;
}

/* The case's program as a native JSON document (its instances in order,
 * each instance's tensors renamed i<k>_NAME when there are several). */
json_t *cf_build_program(const cf_case *c, trn_error *e) {
    json_t *prog = json_object(), *tensors = json_array(), *insts = json_array();
    json_object_set_new(prog, "cores", json_integer(c->cores));
    json_object_set_new(prog, "tensors", tensors);
    json_object_set_new(prog, "instructions", insts);
    for (int k = 0; k < c->n_inst; ++k) {
        const cf_instance *in = &c->inst[k];
        json_t *t;
        size_t i;
        json_array_foreach(json_object_get(in->r->obj, "tensors"), i, t) {
            const char *name = json_string_value(json_object_get(t, "name"));
            if (name && !cf_tensor_used(in, name)) continue;
            json_t *x = build_tensor(c, k, t, e);
            if (!x) goto fail;
            json_array_append_new(tensors, x);
        }
        json_array_foreach(json_object_get(in->r->obj, "instructions"), i, t) {
            if (i < 64 && (in->dropped >> i) & 1) continue;
            json_t *x = build_instruction(c, k, i, t, e);
            if (!x) goto fail;
            json_array_append_new(insts, x);
        }
    }
    return prog;
fail:
    json_decref(prog);
    return NULL;
}

/* ---- the adversarial values ---- */

/* An fp32 bit pattern that is an exact rounding tie when narrowed to a
 * format keeping `keep` of fp32's 23 mantissa bits, in that format's normal
 * range (exponent within +-emax). */
static uint32_t narrowing_tie(uint64_t *st, int keep, int emax) {
    uint32_t sign = (uint32_t)(cf_next(st) & 1) << 31;
    uint32_t exp = (uint32_t)(127 + cf_range(st, -emax + 2, emax - 1));
    uint32_t drop = 23u - (uint32_t)keep;
    uint32_t mant = (uint32_t)cf_next(st) & 0x7fffffu;
    mant = (mant & ~((1u << drop) - 1)) | (1u << (drop - 1));
    return sign | exp << 23 | mant;
}

/* An fp32 pattern of one of the special classes. */
static uint32_t special_f32(uint64_t *st) {
    uint32_t sign = (uint32_t)(cf_next(st) & 1) << 31;
    switch (cf_next(st) % 10) {
        case 0: return sign | 0x7fc00000u | ((uint32_t)cf_next(st) & 0x3fffffu); /* qNaN payload */
        case 1: return sign | 0x7f800001u | ((uint32_t)cf_next(st) & 0x1fffffu); /* sNaN */
        case 2: return sign;                                                     /* +-0 */
        case 3: return sign | ((uint32_t)cf_next(st) & 0x7fffffu);               /* subnormal */
        case 4: return sign | 0x7f800000u;                                       /* +-Inf */
        case 5: return sign | 0x7f7fffffu;                                       /* largest */
        case 6: return narrowing_tie(st, 7, 127);                                /* -> bf16 */
        case 7: return narrowing_tie(st, 10, 15);                                /* -> fp16 */
        case 8: return narrowing_tie(st, 3, 7);                                  /* -> fp8 e4m3 */
        default: return narrowing_tie(st, 2, 15);                                /* -> fp8 e5m2 */
    }
}

/* Plain data: offset + scale * u with scale and offset fixed per row and
 * tile (a segment), so merges and folds see changing magnitudes. */
typedef struct segment {
    double scale, offset;
} segment;

static segment segment_of(uint64_t seed) {
    uint64_t s = seed;
    int e = (int)cf_range(&s, -24, 24);
    segment g = {ldexp(1.0, e), 0.0};
    if (cf_next(&s) % 3 == 0) g.offset = ldexp(cf_unit(&s) * 2 - 1, e + (int)cf_range(&s, 0, 8));
    return g;
}

static void store(trn_dtype dt, uint32_t f32bits, int64_t ival, bool use_int, uint8_t *dst) {
    uint32_t w = trn_dtype_width(dt);
    if (!trn_dtype_is_float(dt)) {
        memcpy(dst, &ival, w); /* little-endian: the low bytes */
        return;
    }
    if (use_int) f32bits = trn_f32_bits((float)ival);
    if (dt == TRN_DT_FP32 || dt == TRN_DT_FP32R)
        memcpy(dst, &f32bits, 4);
    else if (dt == TRN_DT_BF16) {
        uint16_t h = (uint16_t)(f32bits >> 16);
        if ((f32bits & 0x7fffffffu) > 0x7f800000u && !(h & 0x7f)) h |= 1; /* stay a NaN */
        memcpy(dst, &h, 2);
    } else
        trn_narrow(dt, trn_bits_f32(f32bits), dst);
}

static bool is_unsigned(trn_dtype dt) {
    return dt == TRN_DT_UINT8 || dt == TRN_DT_UINT16 || dt == TRN_DT_UINT32 || dt == TRN_DT_UINT64;
}

static int64_t int_extreme(trn_dtype dt, uint64_t *st) {
    uint32_t bits = trn_dtype_width(dt) * 8;
    bool is_signed = !is_unsigned(dt);
    int64_t max =
        bits == 64 ? (is_signed ? INT64_MAX : -1) : (int64_t)((1ull << (bits - is_signed)) - 1);
    int64_t min = is_signed ? (bits == 64 ? INT64_MIN : -max - 1) : 0;
    switch (cf_next(st) % 6) {
        case 0: return max;
        case 1: return min;
        case 2: return 0;
        case 3: return is_signed ? -1 : 1;
        case 4: return max - 1;
        default: return min + 1;
    }
}

/* Element `col` of a row: a pure function of (the row's seed, col), so
 * that shrinking a shape keeps the data of the elements that stay. */
static void element(trn_dtype dt, uint64_t rs, int64_t col, const segment *g, uint8_t *dst) {
    uint64_t st = cf_mix(rs ^ (uint64_t)col * 0x9e3779b97f4a7c15ull);
    uint32_t cls = (uint32_t)(cf_next(&st) % 100);
    bool is_int = !trn_dtype_is_float(dt);
    if (cls < 15) { /* repeated: one of four values per row (ties) */
        st = cf_mix(rs ^ (cf_next(&st) % 4) ^ 0xabcdefu);
        cls = 15 + (uint32_t)(cf_next(&st) % 85);
    }
    if (cls < 40) {
        store(dt, special_f32(&st), int_extreme(dt, &st), is_int, dst);
    } else if (is_int) {
        store(dt, 0, cf_range(&st, is_unsigned(dt) ? 0 : -1000, 1000), true, dst);
    } else if (cls < 45 && trn_dtype_width(dt) < 4 && dt != TRN_DT_BF16) {
        uint8_t raw[2] = {(uint8_t)cf_next(&st), (uint8_t)cf_next(&st)}; /* any code of fp16/fp8 */
        memcpy(dst, raw, trn_dtype_width(dt));
    } else {
        float v = (float)(g->offset + g->scale * (cf_unit(&st) * 2 - 1));
        store(dt, trn_f32_bits(v), 0, false, dst);
    }
}

/* Fill one input tensor on every core: rows are the first dimension, and
 * scale and offset change every `tile` elements along the rest. Row r gets
 * the data of row r + row_shift (shrinking moves a differing row to 0). */
void cf_fill_input(cf_input *t, uint64_t seed, int64_t row_shift) {
    uint32_t w = trn_dtype_width(t->dtype);
    int64_t rows = t->ndim > 1 ? t->shape[0] : 1, row_len = rows ? t->count / rows : 0;
    int64_t tile = (int64_t)1 << (3 + (seed >> 60) % 6); /* 8 .. 256 */
    uint8_t *dst = t->data;
    for (uint32_t c = 0; c < t->cores; ++c)
        for (int64_t r = 0; r < rows; ++r) {
            uint64_t rs = cf_mix(seed ^ cf_mix((uint64_t)c << 40 ^ (uint64_t)(r + row_shift)));
            segment g = {1.0, 0.0};
            for (int64_t col = 0; col < row_len; ++col, dst += w) {
                if (col % tile == 0) g = segment_of(cf_mix(rs ^ (uint64_t)(col / tile) << 1));
                element(t->dtype, rs, col, &g, dst);
            }
        }
}
