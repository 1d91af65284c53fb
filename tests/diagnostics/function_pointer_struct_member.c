struct ops {
    int (*op)(int);
};

extern struct ops table;

int f(int x)
{
    return table.op(x);
}
