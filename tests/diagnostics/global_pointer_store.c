extern float *gp;

void f(float x)
{
    *gp = x;
}
