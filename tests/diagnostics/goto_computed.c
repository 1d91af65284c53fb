int f(int x)
{
    void *p = &&out;
    goto *p;
out:
    return x;
}
