/* Test data and the bit-exact comparison the three examples share. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

float tonemap(float x);   /* the scalar original (tonemap.c) */

/* n floats: special values first, then random bit patterns (every exponent, NaNs, subnormals). */
static void fill(float *x, size_t n)
{
    static const float special[] = {0.0f, -0.0f, 0.25f, 0.2499999f, 1.0f, 999.0f, 1e30f, -1.0f,
                                    __builtin_inff(), -__builtin_inff(), __builtin_nanf(""), 1e-40f};
    uint64_t s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t bits = (uint32_t)(s >> 32);
        if (i < sizeof special / sizeof special[0])
            x[i] = special[i];
        else
            memcpy(&x[i], &bits, sizeof bits);
    }
}

/* Compare got[i] with the scalar tonemap(x[i]) bit for bit; print a summary; 0 if all equal. */
static int report(const char *what, const float *x, const float *got, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float want = tonemap(x[i]);
        if (memcmp(&want, &got[i], sizeof want) != 0 && bad++ < 5)
            printf("  %s: x=%a: scalar %a, vector %a\n", what, x[i], want, got[i]);
    }
    printf("%-10s %zu values, %zu differ from the scalar tonemap\n", what, n, bad);
    return bad != 0;
}
