"""intent/ -> typed Intent -> resolved Fabric -> checks -> generated/."""
