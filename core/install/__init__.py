"""Setting the machine up: the planner (facts + choices -> a plan of steps), the runner (carries a
plan out and streams progress) and the privileged helper (core.install.helper, the only code that
runs as root; nothing else imports it). This package imports nothing on purpose."""
