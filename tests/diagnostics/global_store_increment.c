int count;

int f(int x)
{
    count++;
    return x;
}
