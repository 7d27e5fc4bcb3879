/* Test modules of the shared services (ABI 3), by SVC_ROLE:
 *   1  an exporter of "test.answer" at version SVC_VERSION, family SVC_FAMILY
 *   2  a user (family "svcuser") needing "test.answer" >= 2. Its init looks
 *      the interface up and fails unless answer() is 42 and twice(21) is 42,
 *      and unless an undeclared name and a too high version give NULL; its
 *      state is the interface. SvcAnswer (220) writes answer() to register 0. */
#include <stdio.h>

#include "service_iface.h"
#include "trnsim/plugin.h"

#if SVC_ROLE == 1
static int64_t answer(void) { return 42; }
static int64_t twice(int64_t x) { return 2 * x; }
static const test_answer_service iface = {sizeof iface, answer, twice};
static const trn_service_desc exports[] = {{"test.answer", SVC_VERSION, &iface}};
static trn_status no_op(const trn_host_api *api, trn_ctx *ctx, void *state) { return TRN_OK; }
static const trn_opcode_desc ops[] = {
    {.it = SVC_IT, .name = SVC_OPNAME, .handler = no_op, .flags = TRN_OPF_NO_ATTRS}};

TRN_PLUGIN_DEFINE(svc) = {
    TRN_PLUGIN_HEADER, .name = SVC_NAME, .family = SVC_FAMILY,
    .version = "9.9",  TRN_OPS(ops),     TRN_EXPORTS(exports),
};
#else
static const trn_service_need needs[] = {{"test.answer", 2, "svc", "trnsim-svc-v2"}};

static trn_status user_init(const trn_host_api *api, const trn_settings *settings, void **state,
                            char *err, size_t errlen) {
    const test_answer_service *s = api->service(settings, "test.answer", 2);
    if (!s || s->answer() != 42 || s->twice(21) != 42) {
        snprintf(err, errlen, "test.answer did not answer");
        return TRN_ERR;
    }
    if (api->service(settings, "test.other", 1) || api->service(settings, "test.answer", 99)) {
        snprintf(err, errlen, "an undeclared or too new service was found");
        return TRN_ERR;
    }
    *state = (void *)s;
    return TRN_OK;
}

static trn_status svc_answer(const trn_host_api *api, trn_ctx *ctx, void *state) {
    const test_answer_service *s = state;
    return api->checking(ctx) ? TRN_OK : api->reg_write(ctx, 0, s->answer());
}
static const trn_opcode_desc ops[] = {
    {.it = 220, .name = "SvcAnswer", .handler = svc_answer, .flags = TRN_OPF_NO_ATTRS}};

TRN_PLUGIN_DEFINE(svcuser) = {
    TRN_PLUGIN_HEADER, .name = "trnsim-svc-user", .family = "svcuser", .version = "1.0",
    TRN_OPS(ops),      TRN_NEEDS(needs),          .init = user_init,
};
#endif
