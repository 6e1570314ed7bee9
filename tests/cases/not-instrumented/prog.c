/* a program built without -finstrument-functions records fine, and says so */
int main(void) { return 0; }
