"""The code protoc generates from api/allot/v1/allot.proto (gen.sh beside
pyproject.toml regenerates it): the messages and the Allot and Admin stubs,
for a caller that wants the raw API rather than allot.Client's sessions."""
