/* The pod sandbox's process, made here because no registry can be reached: it holds the pod's namespaces,
 * reaps the children it inherits, and exits on SIGINT or SIGTERM. Built with `gcc -static`. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int sig) { (void)sig; _exit(0); }
static void reap(int sig) {
  (void)sig;
  while (waitpid(-1, 0, WNOHANG) > 0) {
  }
}

int main(void) {
  signal(SIGINT, stop);
  signal(SIGTERM, stop);
  signal(SIGCHLD, reap);
  for (;;) pause();
}
