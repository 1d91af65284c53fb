/* 3. The array wrapper: tonemap_array(result, x, n) for any n, any alignment; the last n % 8
   elements go through a gang-sized buffer and the masked function (no access past the arrays). */
#include <stdlib.h>
#include "common.h"
#include "gen/tonemap_avx2.h"

int main(void)
{
    int bad = 0;
    for (size_t n = 0; n < 100; n++) {       /* every tail length, misaligned by one float */
        float *x = malloc((n + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
        fill(x + 1, n);
        tonemap_array(y + 1, x + 1, n);
        for (size_t i = 0; i < n; i++) {
            float want = tonemap(x[1 + i]);
            bad += memcmp(&want, &y[1 + i], sizeof want) != 0;
        }
        free(x);
        free(y);
    }
    printf("%-10s n = 0..99, %d values differ from the scalar tonemap\n", "array", bad);
    enum { N = (1 << 20) + 5 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    fill(x, N);
    tonemap_array(y, x, N);
    return report("array", x, y, N) || bad;
}
