/* dpquant test-only shim: a deterministic OpenSSL RAND_bytes / RAND_priv_bytes.
 *
 * python-dp draws its noise from OpenSSL's RAND_bytes (its bundled libcrypto is linked
 * dynamically), and offers no seed. Preloaded (LD_PRELOAD), this file replaces those two calls
 * with a SplitMix64 stream (Steele, Lea and Flood 2014) seeded from DPQUANT_RAND_SEED, so that a
 * whole process's python-dp draws are a function of that seed: audits become reproducible.
 * It is not a cryptographic generator; use it for tests only.
 */
#include <stdint.h>
#include <stdlib.h>

static uint64_t state;
static int seeded;

static uint64_t next_word(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void fill(unsigned char *out, int count) {
    if (!seeded) {
        const char *text = getenv("DPQUANT_RAND_SEED");
        state = text ? strtoull(text, NULL, 10) : 0;
        seeded = 1;
    }
    for (int i = 0; i < count; i += 8) {
        uint64_t word = next_word();
        for (int j = 0; j < 8 && i + j < count; j++) {
            out[i + j] = (unsigned char)(word >> (8 * j));
        }
    }
}

int RAND_bytes(unsigned char *out, int count) {
    fill(out, count);
    return 1;
}

int RAND_priv_bytes(unsigned char *out, int count) {
    fill(out, count);
    return 1;
}
