/* Shared services between modules (ABI 3, docs/plugins.md "Shared
 * services"): the export and need lists of each descriptor are checked on
 * their own, then every need is matched against the exports of the modules
 * that stay loaded, before any module's init runs, so a missing or too old
 * exporter is a load error and init can look its interfaces up in any load
 * order. */
#include "modules/modules.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The descriptor carries field `end` bytes in: ABI 3 and a size covering it. */
static bool desc_covers(const trn_plugin_desc *d, size_t end) {
    return d->abi_version >= 3 && d->size >= end;
}

void trn_services_read(trn_module *m) {
    const trn_plugin_desc *d = m->desc;
    m->exports = NULL;
    m->n_exports = 0;
    m->needs = NULL;
    m->n_needs = 0;
    if (desc_covers(d, offsetof(trn_plugin_desc, n_exports) + sizeof d->n_exports)) {
        m->exports = d->exports;
        m->n_exports = d->exports ? d->n_exports : 0;
    }
    if (desc_covers(d, offsetof(trn_plugin_desc, n_needs) + sizeof d->n_needs)) {
        m->needs = d->needs;
        m->n_needs = d->needs ? d->n_needs : 0;
    }
}

int trn_services_check_desc(const trn_module *m, trn_error *e) {
    const trn_plugin_desc *d = m->desc;
    if (m->n_exports > TRN_DESC_MAX_ENTRIES || m->n_needs > TRN_DESC_MAX_ENTRIES)
        return trn_errorf(e,
                          "descriptor has %u exported and %u needed services (at most %u of each)",
                          m->n_exports, m->n_needs, TRN_DESC_MAX_ENTRIES);
    if ((desc_covers(d, offsetof(trn_plugin_desc, n_exports) + sizeof d->n_exports) &&
         d->n_exports && !d->exports) ||
        (desc_covers(d, offsetof(trn_plugin_desc, n_needs) + sizeof d->n_needs) && d->n_needs &&
         !d->needs))
        return trn_errorf(e, "descriptor has a count without its table");
    for (uint32_t i = 0; i < m->n_exports; ++i) {
        const trn_service_desc *x = &m->exports[i];
        if (!x->name || !*x->name || !x->iface || x->version == 0)
            return trn_errorf(
                e, "exported service entry %u lacks a name, an interface or a version >= 1", i);
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(m->exports[j].name, x->name) == 0)
                return trn_errorf(e, "exports the service '%s' twice", x->name);
    }
    for (uint32_t i = 0; i < m->n_needs; ++i) {
        const trn_service_need *n = &m->needs[i];
        if (!n->name || !*n->name || n->min_version == 0)
            return trn_errorf(e, "needed service entry %u lacks a name or a min_version >= 1", i);
        for (uint32_t j = 0; j < i; ++j)
            if (strcmp(m->needs[j].name, n->name) == 0)
                return trn_errorf(e, "needs the service '%s' twice", n->name);
    }
    return 0;
}

/* Module i stays loaded unless a later entry replaces its family. */
static bool stays(const trn_registry *s, size_t i) {
    for (size_t j = i + 1; j < s->n_mods; ++j)
        if (s->mods[j].cfg->replaces &&
            strcmp(s->mods[j].cfg->replaces, s->mods[i].desc->family) == 0)
            return false;
    return true;
}

static const trn_service_desc *find_export(const trn_registry *s, const char *name,
                                           const trn_module **owner) {
    for (size_t i = 0; i < s->n_mods; ++i) {
        if (!stays(s, i)) continue;
        for (uint32_t k = 0; k < s->mods[i].n_exports; ++k)
            if (strcmp(s->mods[i].exports[k].name, name) == 0) {
                *owner = &s->mods[i];
                return &s->mods[i].exports[k];
            }
    }
    return NULL;
}

static int check_unique(const trn_registry *s, size_t i, trn_error *e) {
    const trn_module *m = &s->mods[i];
    for (uint32_t k = 0; k < m->n_exports; ++k) {
        const trn_module *owner = NULL;
        find_export(s, m->exports[k].name, &owner);
        if (owner != m)
            return trn_errorf(
                e,
                "exports the service '%s', which module '%s' (family %s) exports too; at most one "
                "loaded module may export a service",
                m->exports[k].name, owner->desc->name, owner->desc->family);
    }
    return 0;
}

static int resolve_need(const trn_registry *s, trn_module *m, uint32_t k, trn_error *e) {
    const trn_service_need *n = &m->needs[k];
    const trn_module *owner = NULL;
    const trn_service_desc *x = find_export(s, n->name, &owner);
    if (!x) {
        if (n->family && n->module)
            return trn_errorf(
                e,
                "needs the service '%s' version >= %u, which no loaded module exports; add "
                "{ family = \"%s\"; module = \"%s\"; } to the config's plugins, which exports it",
                n->name, n->min_version, n->family, n->module);
        return trn_errorf(
            e,
            "needs the service '%s' version >= %u, which no loaded module exports; add the module "
            "that exports it to the config's plugins",
            n->name, n->min_version);
    }
    if (x->version < n->min_version)
        return trn_errorf(
            e,
            "needs the service '%s' version >= %u, but module '%s' (family %s, %s) exports version "
            "%u; load a newer '%s' that exports version %u or later",
            n->name, n->min_version, owner->desc->name, owner->desc->family, owner->desc->version,
            x->version, owner->desc->name, n->min_version);
    m->need_export[k] = x;
    return 0;
}

int trn_services_resolve(trn_registry *s, size_t *failed, trn_error *e) {
    for (size_t i = 0; i < s->n_mods; ++i) {
        trn_module *m = &s->mods[i];
        *failed = i;
        if (stays(s, i) && check_unique(s, i, e)) return -1;
        if (!m->n_needs) continue;
        m->need_export = calloc(m->n_needs, sizeof *m->need_export);
        if (!m->need_export) return trn_errorf(e, "out of memory");
        for (uint32_t k = 0; k < m->n_needs; ++k)
            if (resolve_need(s, m, k, e)) return -1;
    }
    return 0;
}

const void *trn_services_lookup(const trn_module *m, const char *name, uint32_t min_version) {
    if (!m || !name || !m->need_export) return NULL;
    for (uint32_t k = 0; k < m->n_needs; ++k) {
        const trn_service_desc *x = m->need_export[k];
        if (x && strcmp(m->needs[k].name, name) == 0)
            return x->version >= min_version ? x->iface : NULL;
    }
    return NULL;
}
