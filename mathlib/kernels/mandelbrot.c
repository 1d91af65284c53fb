/* mandelbrot: escape time of one pixel, the per-pixel body of ispc's mandelbrot example
   (github.com/ispc/ispc, examples/cpu/mandelbrot/mandelbrot_serial.cpp, BSD-3-Clause, Intel):
   its algorithm, written again in C for mathlib's kernel suite (mathlib/suite.py).
   One call per pixel; a gang is consecutive pixels of one row (`i` linear, the row `j` and the
   frame uniform), as ispc's `foreach (i = 0 ... width)` makes it: the inputs are coherent and
   the iteration counts of neighbouring lanes are close. `mandel` runs at most `count` iterations
   and returns the one at which |z| > 2 (a loop with a uniform bound and a data-dependent break);
   only its count is live after the loop. */

static int mandel(float c_re, float c_im, int count)
{
    float z_re = c_re, z_im = c_im;
    int i;
    for (i = 0; i < count; ++i) {
        if (z_re * z_re + z_im * z_im > 4.0f)
            break;
        float new_re = z_re * z_re - z_im * z_im;
        float new_im = 2.0f * z_re * z_im;
        z_re = c_re + new_re;
        z_im = c_im + new_im;
    }
    return i;
}

#pragma omp declare simd uniform(x0, y0, dx, dy, width, max_iterations, output, j) linear(i)
void mandelbrot(float x0, float y0, float dx, float dy, int width, int max_iterations, int *output, int j, int i)
{
    float x = x0 + i * dx;
    float y = y0 + j * dy;
    output[j * width + i] = mandel(x, y, max_iterations);
}
