float hist[8];

void f(float x, int n)
{
    for (int k = 0; k < n; k++)
        hist[k & 7] = x;
}
