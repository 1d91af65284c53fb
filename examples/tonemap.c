/* A per-pixel function of the kind expand is for: Reinhard tone mapping with a linear toe and a
   ceiling, NaN and negatives mapped to 0. Scalar C; expand writes its vector versions. */

float tonemap(float x)
{
    if (!(x > 0.0f))            /* NaN, -0, negatives */
        return 0.0f;
    if (x < 0.25f)
        return x * 0.8f;
    float y = x / (1.0f + x);
    if (y > 0.999f)
        y = 0.999f;
    return y;
}
