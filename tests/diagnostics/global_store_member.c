struct s {
    int a;
};

struct s g;

int f(int x)
{
    g.a = x;
    return x;
}
