
?
xPlaceholder*
dtype0* 
shape:ÿÿÿÿÿÿÿÿÿ

ySoftmaxx*
T0"ª