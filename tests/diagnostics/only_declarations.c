int f(int x);
float g(float y);
