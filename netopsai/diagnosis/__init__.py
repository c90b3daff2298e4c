"""Diagnosis: from the evidence of a connectivity question to a root cause, or an honest
'inconclusive' with what was ruled out."""
