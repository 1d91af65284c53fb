/* a pointer parameter that points to a gang (one element per lane) indexed past its element */
float f(float *p, int i)
{
    return p[i & 1];
}
