void g(void);

int f(int x)
{
    return g();
}
