#define A(x) x

int f(int x)
{
    return A(x;
}
