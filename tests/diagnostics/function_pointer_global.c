extern int (*hook)(int);

int f(int x)
{
    return hook(x);
}
