#include <zengine/zengine.h>
int main(void)
{
    return 0;
}
