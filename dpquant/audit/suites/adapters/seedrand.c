/* dpquant test-only shim: deterministic randomness for libraries that offer no seed.
 *
 * Preloaded (LD_PRELOAD) into a subprocess, it draws every byte it hands out from one SplitMix64
 * stream (Steele, Lea and Flood 2014) seeded from DPQUANT_RAND_SEED. It is not a cryptographic
 * generator; use it for tests only. Two layers:
 *
 * 1. OpenSSL's RAND_bytes / RAND_priv_bytes, for a library that links libcrypto dynamically
 *    (python-dp): the preloaded definitions replace libcrypto's for the whole process.
 *
 * 2. The operating system's entropy calls (getentropy, getrandom, syscall(SYS_getrandom)), for a
 *    library that links OpenSSL statically (OpenDP): only calls made from inside the shared
 *    object whose path contains DPQUANT_SEED_LIBRARY are answered from the stream (dladdr on the
 *    return address); every other caller, Python included, gets the real call. OpenSSL also mixes
 *    the addresses of its generator objects into their seeds, so the process must run with
 *    address-space randomization off and a fixed PYTHONHASHSEED (seeding.py arranges both).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static uint64_t state;
static int seeded;

static uint64_t next_word(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void fill(unsigned char *out, size_t count) {
    if (!seeded) {
        const char *text = getenv("DPQUANT_RAND_SEED");
        state = text ? strtoull(text, NULL, 10) : 0;
        seeded = 1;
    }
    for (size_t i = 0; i < count; i += 8) {
        uint64_t word = next_word();
        for (size_t j = 0; j < 8 && i + j < count; j++) {
            out[i + j] = (unsigned char)(word >> (8 * j));
        }
    }
}

/* ---- layer 1: OpenSSL, dynamically linked ---- */

int RAND_bytes(unsigned char *out, int count) {
    fill(out, count > 0 ? (size_t)count : 0);
    return 1;
}

int RAND_priv_bytes(unsigned char *out, int count) {
    fill(out, count > 0 ? (size_t)count : 0);
    return 1;
}

/* ---- layer 2: the OS entropy calls of one named library ---- */

static int from_seeded_library(void *return_address) {
    const char *name = getenv("DPQUANT_SEED_LIBRARY");
    Dl_info info;
    if (name == NULL || *name == '\0') {
        return 0;
    }
    return dladdr(return_address, &info) && info.dli_fname && strstr(info.dli_fname, name);
}

#define CALLER __builtin_return_address(0)

ssize_t getrandom(void *out, size_t count, unsigned int flags) {
    static ssize_t (*real)(void *, size_t, unsigned int);
    if (from_seeded_library(CALLER)) {
        fill(out, count);
        return (ssize_t)count;
    }
    if (real == NULL) {
        real = (ssize_t (*)(void *, size_t, unsigned int))dlsym(RTLD_NEXT, "getrandom");
    }
    return real(out, count, flags);
}

int getentropy(void *out, size_t count) {
    static int (*real)(void *, size_t);
    if (from_seeded_library(CALLER)) {
        fill(out, count);
        return 0;
    }
    if (real == NULL) {
        real = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "getentropy");
    }
    return real(out, count);
}

long syscall(long number, ...) {
    static long (*real)(long, ...);
    long arg[6];
    va_list list;
    va_start(list, number);
    for (int i = 0; i < 6; i++) {
        arg[i] = va_arg(list, long);
    }
    va_end(list);
    if (number == SYS_getrandom && from_seeded_library(CALLER)) {
        fill((unsigned char *)arg[0], (size_t)arg[1]);
        return arg[1];
    }
    if (real == NULL) {
        real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    }
    return real(number, arg[0], arg[1], arg[2], arg[3], arg[4], arg[5]);
}
