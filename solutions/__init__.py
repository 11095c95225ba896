"""The workbook's reference solutions: ``solutions/mytok/`` holds every stage of the student's package written
out, in the notebooks' order. Each is written from the notebook's explanation, never by calling gguftok.
"""
