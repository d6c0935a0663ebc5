"""The wizard's pages: each shows what a core operation returns and calls what it offers."""
