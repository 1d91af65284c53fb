/* shade: a Blinn-Phong term with toon banding, the kind of per-pixel function that calls libm.
   n_dot_l and n_dot_h are the cosines of the light and half-vector angles, gloss the surface's
   smoothness in [0, 1]. Lit pixels get a diffuse term banded into 4 steps (floorf) plus a specular
   highlight powf(n_dot_h, shininess); pixels facing away get a rim term from sqrtf. Ours (mathlib). */

#include <math.h>

float shade(float n_dot_l, float n_dot_h, float gloss)
{
    float shininess = 2.0f + 126.0f * gloss * gloss;
    float color;
    if (n_dot_l > 0.0f) {
        float diffuse = floorf(n_dot_l * 4.0f) * 0.25f;
        float spec = 0.0f;
        if (n_dot_h > 0.0f)
            spec = powf(n_dot_h, shininess) * (shininess + 8.0f) * 0.0397887f;
        color = 0.1f + 0.75f * diffuse + spec;
    } else {
        float rim = 1.0f + n_dot_l;
        color = 0.1f * sqrtf(rim > 0.0f ? rim : 0.0f);
    }
    return color;
}
