int f(int x)
{
    int s = 0;
    for (int i = 0; i < 4; i++) {
        switch (i) {
        case 2:
            s += x;
        }
    }
    return s;
}
