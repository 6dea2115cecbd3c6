"""intent/ -> typed Intent -> facts -> one structured config per switch -> checks -> text -> generated/."""
