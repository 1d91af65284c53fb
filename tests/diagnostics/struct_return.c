struct s {
    int a;
};

extern struct s g;

struct s f(int x)
{
    return g;
}
