"""What a cluster run says when it cannot run: one line, for the command line's exit 2."""


class ClusterError(ValueError):
  """A cluster that cannot be started or joined, a rule set or target the workers cannot load, an option that does not apply.

  >>> str(ClusterError("--cluster local:0: expected local:N"))
  '--cluster local:0: expected local:N'
  """
