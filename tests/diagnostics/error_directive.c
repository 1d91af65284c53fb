#error "this file is not ready"
int f(int x)
{
    return x;
}
