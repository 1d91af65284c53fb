struct s {
    int a;
};

int f(int x)
{
    return (struct s){x}.a;
}
