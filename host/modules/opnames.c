#include "modules/modules.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifndef TRNSIM_BUILT_FAMILIES
#define TRNSIM_BUILT_FAMILIES ""
#endif
#ifndef TRNSIM_PROJECT_FAMILIES
#define TRNSIM_PROJECT_FAMILIES ""
#endif

static const trn_known_op known_ops[] = {
    {3, "AbstractCopy", "dma"},
    {11, "GetGlobalRankId", "collective"},
    {19, "Load", "dma"},
    {22, "Save", "dma"},
    {23, "TensorCopy", "dma"},
    {32, "DMACopy", "dma"},
    {34, "BNStats", "bn"},
    {35, "BNStatsAggregate", "bn"},
    {36, "BNGradients", "bn"},
    {37, "BNBackprop", "bn"},
    {38, "BNBackprop2", "bn"},
    {48, "CollectiveCompute", "collective"},
    {49, "CollectiveSend", "collective"},
    {50, "CollectiveRecv", "collective"},
    {58, "GetRandState", "rng"},
    {59, "SetRandState", "rng"},
    {60, "Rand", "rng"},
    {66, "GetCurProcessingRankID", "collective"},
    {67, "DMATrigger", "dma"},
    {68, "DMADescriptor", "dma"},
    {69, "DMADescriptorCopy", "dma"},
    {70, "DMADescriptorCCE", "dma"},
    {71, "DMADescriptorTranspose", "dma"},
    {72, "DMADescriptorReplicate", "dma"},
    {88, "Max", "search"},
    {89, "MaxIndex", "search"},
    {90, "MatchReplace", "search"},
    {91, "MaxIndexAndMatchReplace", "search"},
    {93, "InlineASMBytes", NULL},
    {97, "Rand2", "rng"},
    {98, "GetRandState2", "rng"},
    {99, "SetRandState2", "rng"},
    {100, "Rng", NULL},
    {104, "NonzeroWithCount", NULL},
    {107, "DMABlock", "dma"},
    {128, "TensorLoad", "dma"},
    {129, "TensorSave", "dma"},
    {130, "GenericCopy", "dma"},
};

const trn_known_op *trn_known_op_by_name(const char *name) {
    for (size_t i = 0; i < sizeof known_ops / sizeof known_ops[0]; ++i)
        if (strcmp(known_ops[i].name, name) == 0) return &known_ops[i];
    return NULL;
}

const trn_known_op *trn_known_op_by_it(uint32_t it) {
    for (size_t i = 0; i < sizeof known_ops / sizeof known_ops[0]; ++i)
        if (known_ops[i].it == it) return &known_ops[i];
    return NULL;
}

static int in_list(const char *list, const char *family) {
    size_t n = strlen(family);
    for (const char *p = list; *p;) {
        const char *semi = strchr(p, ','); /* the build's list, ','-separated */
        size_t len = semi ? (size_t)(semi - p) : strlen(p);
        if (len == n && strncmp(p, family, n) == 0) return 1;
        if (!semi) break;
        p = semi + 1;
    }
    return 0;
}

int trn_family_built(const char *family) {
    return in_list(TRNSIM_BUILT_FAMILIES, family) || !in_list(TRNSIM_PROJECT_FAMILIES, family);
}

const char *trn_family_build_hint(const char *family, char *buf, size_t len) {
    snprintf(buf, len, "-DTRNSIM_FAMILIES=\"%s%s%s\"", TRNSIM_BUILT_FAMILIES,
             *TRNSIM_BUILT_FAMILIES ? ";" : "", family);
    for (char *c = buf; *c; ++c)
        if (*c == ',') *c = ';'; /* CMake's list separator */
    return buf;
}
