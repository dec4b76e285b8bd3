// hnclip: the headless command-line front end of the workbench (placeholder while the core is built).
int main() { return 0; }
