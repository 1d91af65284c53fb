void sink(int *p);

int f(int x)
{
    sink(&x);
    return x;
}
