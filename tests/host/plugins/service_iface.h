/* The interface of the test service "test.answer" (service_plugin.c). */
#ifndef TRNSIM_TEST_SERVICE_IFACE_H
#define TRNSIM_TEST_SERVICE_IFACE_H

#include <stdint.h>

typedef struct test_answer_service {
    uint32_t size;
    int64_t (*answer)(void);   /* version 1 */
    int64_t (*twice)(int64_t); /* version 2 */
} test_answer_service;

#endif
