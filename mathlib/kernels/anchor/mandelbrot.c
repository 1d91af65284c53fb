/* The anchor of mathlib/kernels/mandelbrot.c: one gang of pixels (VL consecutive pixels of row j
   from i on) by hand, with the instructions of simd.h, as ispc compiles its mandelbrot example:
   the iteration counter is one scalar shared by the lanes (the bound is uniform), z_re and z_im
   are updated in every lane every iteration (ispc's `unmasked`: a lane that left computes values
   nothing reads), and the only blend is of the live-out count, in the iteration a lane leaves. */

#include "simd.h"

void anchor_mandelbrot(float x0, float y0, float dx, float dy, int width, int max_iterations, int *output, int j,
                       int i)
{
    vf c_re = vf_add(vf_set1(x0), vf_mul(vf_lanes_from(i), vf_set1(dx)));
    vf c_im = vf_set1(y0 + j * dy);
    vf z_re = c_re, z_im = c_im;
    vi count = vi_set1(max_iterations > 0 ? max_iterations : 0); /* lanes that never leave */
    vm active = vm_all();
    for (int k = 0; k < max_iterations; ++k) {
        vf re2 = vf_mul(z_re, z_re), im2 = vf_mul(z_im, z_im);
        vm leaving = vm_and(active, vf_gt(vf_add(re2, im2), vf_set1(4.0f)));
        if (vm_any(leaving)) {
            count = vi_blend(count, vi_set1(k), leaving);
            active = vm_andnot(active, leaving);
            if (!vm_any(active))
                break;
        }
        vf new_im = vf_mul(vf_mul(vf_set1(2.0f), z_re), z_im);
        z_re = vf_add(c_re, vf_sub(re2, im2));
        z_im = vf_add(c_im, new_im);
    }
    vi_store(&output[j * width + i], count);
}
