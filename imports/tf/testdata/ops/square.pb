
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

ySquarex*
T0"ª