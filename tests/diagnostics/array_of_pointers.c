int f(int x)
{
    int a = x, b = x + 1;
    int *ptrs[2] = {&a, &b};
    return *ptrs[x & 1];
}
